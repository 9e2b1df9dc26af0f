// SPDX-License-Identifier: GPL-2.0-only
#pragma once
// `--mpi` for experiment and sweep: under mpirun, rank r runs the work items k with
// k % ranks == r (ExperimentOptions::shard/shards) on its own --jobs threads, and rank 0
// gathers every rank's runs and writes results byte-identical to a single-process run. Built
// only where CMake found MPI (SCHEDLAB_HAVE_MPI); elsewhere --mpi says it is absent.
#include <memory>
#include <string>

#include "experiment/experiment.h"

namespace schedlab::cli {

class Mpi {
 public:
  static bool built();  // this schedlab was built with MPI
  Mpi();                // MPI_Init; ranks other than 0 send their stdout to /dev/null
  ~Mpi();               // MPI_Finalize
  Mpi(const Mpi &) = delete;
  Mpi &operator=(const Mpi &) = delete;
  int rank() const { return rank_; }
  int size() const { return size_; }
  // Collective: every rank's share of r lands in rank 0's r. `failed` is this rank's word that
  // its runs did not complete; the result is whether any rank failed (on every rank).
  bool gather(experiment::ExperimentResult &r, bool failed) const;

 private:
  int rank_ = 0, size_ = 1;
};

}  // namespace schedlab::cli
