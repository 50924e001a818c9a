/**
 * The entry of dist/fleetReader.js, the script of the fleet's reader threads: loading
 * fleetReaders.ts in a worker thread marked as a reader makes it serve (see its `serve`). The
 * CLI's `fleet show` and the extension's Open Fleet start it; anywhere else it does nothing.
 */
import './fleetReaders';
