// SPDX-License-Identifier: GPL-2.0-only
#pragma once
// ExperimentRun to bytes and back, for gathering the runs of an MPI job on rank 0. Integers are
// little-endian u64, doubles their IEEE bits (NaN survives), strings length-prefixed: what rank
// 0 decodes is exactly what the rank that ran it had.
#include <string>
#include <string_view>

#include "experiment/experiment.h"

namespace schedlab::experiment {

// Appends (item index, run) to out.
void encode_run(std::size_t item, const ExperimentRun &r, std::string &out);
// Reads one (item, run) from the front of `in` and advances it; throws std::runtime_error on
// bytes that are not an encoded run.
std::pair<std::size_t, ExperimentRun> decode_run(std::string_view &in);

}  // namespace schedlab::experiment
