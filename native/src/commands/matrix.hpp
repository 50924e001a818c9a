#pragma once

// matrix (docs/MATRIX.md): fitting its options to the node, and measuring every ordered pair.
#include <string>

#include "cli/args.hpp"
#include "backend/backend.hpp"
#include "protocol/reporter.hpp"
#include "commands/sweep.hpp"
#include "util/error.hpp"

namespace sdma {

// Resolves --gpus (empty: every GPU of the node) and the default CU count (64, cut to the
// smallest GPU in the list), then checks indices, CU count and size against the node.
// Returns an empty Error when everything fits; otherwise its code is the error record's
// ("usage" for a bad argument, exit 2; "no-gpu" when a hardware backend finds no GPU, exit 1).
Error fitMatrixToNode(Options& options, const Backend& backend);

// Measures every ordered pair src != dst of options.gpus, one pair at a time, for each path
// (path-major, so a stopped run has whole matrices of the first paths). One `matrix-cell`
// per measured cell; a cell that fails gets an `error` record naming it and the rest are
// still measured. Prints progress and cells; not hello, topology or done.
// With options.concurrent, each path's pairs run all at the same time instead (one
// Backend::measureConcurrent per path): `matrix-cell` records with `concurrent: true`, then
// one `matrix-total` per path whose pairs all measured.
CommandResult runMatrix(const Options& options, Backend& backend, Reporter& reporter);

}  // namespace sdma
