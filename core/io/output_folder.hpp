#pragma once
// A run's output folder, guarded against a second run and against what killed runs leave:
// an advisory lock held for the whole run, and the partial files of interrupted writes
// removed before the run writes its own.
#include <string>
#include <vector>

namespace hemo::io {

/// An advisory lock (flock) on <folder>/.hemoflow.lock, held from before a run touches the
/// folder until the process ends: a second run into the folder is refused, naming the
/// first (its process id, host, case and start time, which the holder writes into the
/// lock file). The kernel releases the lock when the holder exits, killed or not, so a
/// stale lock file never blocks a later run.
class FolderLock {
 public:
  FolderLock() = default;
  FolderLock(const FolderLock&) = delete;
  FolderLock& operator=(const FolderLock&) = delete;
  FolderLock(FolderLock&& other) noexcept;
  FolderLock& operator=(FolderLock&& other) noexcept;
  ~FolderLock();

  /// Makes the folder if it is missing and takes its lock. InputError naming the holder
  /// when another process has it; WriteError when the folder or the lock file cannot be
  /// made. `what` (the case file) is written into the lock file for the next one to read.
  static FolderLock take(const std::string& folder, const std::string& what);

 private:
  int fd_ = -1;
};

/// Removes the partial files that an interrupted atomic write leaves (*.tmp) in the folder
/// and in its fields/ and particles/ folders; returns how many it removed.
int remove_partial_writes(const std::string& folder);

/// Whether the folder holds anything a run writes (summary.json, case.toml, a checkpoint,
/// fields/): another run's files, results or not.
bool holds_run(const std::string& folder);

/// What of another run's results the folder holds, each as a person reads it
/// ("checkpoint.h5", "fields/ (12 files)", "3 CSV files", "summary.json of 1000 steps"):
/// what a fresh run would replace. Empty where nothing of value is there: no folder, an
/// empty one, or the summary and case of a run that failed before its first step, which a
/// corrected rerun may replace without --overwrite.
std::vector<std::string> results_in(const std::string& folder);

}  // namespace hemo::io
