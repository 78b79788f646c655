// The one lock around FFTW's planner for the whole process. FFTW's planner keeps global state
// (wisdom, twiddle caches) shared by every plan of a precision, and only plan execution is
// thread-safe: making or destroying a plan, and importing or exporting wisdom, must run one at a
// time. Several libraries plan (the ARD CPU solver, auralize, the geometric engine), and a run
// writes one source's files while the next source's solver plans, so they must all hold this
// same lock; with a lock per library, ARD's planning beside the previous source's write corrupted
// a plan and crashed the solver (Bands/WriteDuringSolve, full band, about one run in 20 under
// load). It lives here, in the library every other one depends on.
#pragma once

#include <mutex>

namespace ardent {

std::mutex& fftw_planner_mutex();

}  // namespace ardent
