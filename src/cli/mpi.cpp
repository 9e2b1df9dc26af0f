// SPDX-License-Identifier: GPL-2.0-only
#include "cli/mpi.h"

#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <vector>

#include "experiment/run_codec.h"

#ifdef SCHEDLAB_HAVE_MPI
#include <mpi.h>
#endif

namespace schedlab::cli {

#ifdef SCHEDLAB_HAVE_MPI

bool Mpi::built() {
  return true;
}

Mpi::Mpi() {
  // The ranks exchange one gather of results at the end, so start-up time matters and bandwidth
  // does not: Open MPI's ob1 layer initialises in ~0.1 s where its default UCX takes ~0.3 s
  // (docs/performance.md). An explicit choice (mpirun --mca pml ..., OMPI_MCA_pml) wins.
  setenv("OMPI_MCA_pml", "ob1", 0);
  MPI_Init(nullptr, nullptr);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
  // Every rank reads the same inputs and would print the same table and errors: rank 0 speaks.
  if (rank_ != 0 && !std::freopen("/dev/null", "w", stdout))
    throw std::runtime_error("cannot silence stdout");
}

Mpi::~Mpi() {
  MPI_Finalize();
}

bool Mpi::gather(experiment::ExperimentResult &r, bool failed) const {
  const std::size_t nruns = r.seeds.size();
  const std::size_t total = r.configs.size() * nruns;
  std::string mine;
  // Only the runs that finished: after an interrupt (SIGINT or SIGTERM sent to every process)
  // the others are missing, and rank 0 keeps what arrived.
  if (!failed)
    for (std::size_t k = static_cast<std::size_t>(rank_); k < total;
         k += static_cast<std::size_t>(size_)) {
      const auto [ci, si] = experiment::work_item(k, r.configs.size());
      if (r.configs[ci].runs[si].done) experiment::encode_run(k, r.configs[ci].runs[si], mine);
    }
  int any_failed = 0, me_failed = failed ? 1 : 0;
  MPI_Allreduce(&me_failed, &any_failed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (any_failed) return false;
  if (mine.size() > static_cast<std::size_t>(INT32_MAX))
    throw std::runtime_error("a rank's results exceed 2 GiB");
  const int len = static_cast<int>(mine.size());
  std::vector<int> lens(static_cast<std::size_t>(size_)), offs(static_cast<std::size_t>(size_));
  MPI_Gather(&len, 1, MPI_INT, lens.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
  std::string all;
  if (rank_ == 0) {
    long long sum = 0;
    for (int i = 0; i < size_; i++) {
      offs[static_cast<std::size_t>(i)] = static_cast<int>(sum);
      sum += lens[static_cast<std::size_t>(i)];
      if (sum > INT32_MAX) throw std::runtime_error("the gathered results exceed 2 GiB");
    }
    all.resize(static_cast<std::size_t>(sum));
  }
  MPI_Gatherv(mine.data(), len, MPI_CHAR, all.data(), lens.data(), offs.data(), MPI_CHAR, 0,
              MPI_COMM_WORLD);
  if (rank_ == 0) {
    std::string_view in(all);
    while (!in.empty()) {
      auto [k, run] = experiment::decode_run(in);
      if (k >= total) throw std::runtime_error("a gathered run names no work item");
      const auto [ci, si] = experiment::work_item(k, r.configs.size());
      r.configs[ci].runs[si] = std::move(run);
      r.configs[ci].runs[si].done = true;
    }
  }
  return true;
}

#else

bool Mpi::built() {
  return false;
}
Mpi::Mpi() {
  throw std::runtime_error(
      "this schedlab was built without MPI (install Debian's "
      "libopenmpi-dev and rebuild)");
}
Mpi::~Mpi() = default;
bool Mpi::gather(experiment::ExperimentResult &, bool failed) const {
  return !failed;
}

#endif

}  // namespace schedlab::cli
