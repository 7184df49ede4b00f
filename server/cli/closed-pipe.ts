/**
 * `coffer status | head -4`: once the reader of stdout is gone, a write fails with EPIPE, which Node
 * raises as an unhandled 'error' event on the stream (a stack trace, once for each write in flight).
 * Node ignores SIGPIPE, so nothing stops the command the way it stops gh, git or cat. Here, for every
 * command at once: a command whose output nobody reads any more ends at once, quietly, with the
 * status a shell gives a program a closed pipe stopped (128 + SIGPIPE).
 */

/** 128 + SIGPIPE (13): what `$?` says after `yes | head -1`, and so what scripts expect. */
export const CLOSED_PIPE_STATUS = 141;

/**
 * Ends the process quietly when stdout's (or stderr's) reader goes away. A command that runs until it
 * is stopped (serve, the demos, mcp) listens for SIGTERM: it is stopped that way instead, gracefully
 * (in-flight payments finish, SQLite closes), and the process then ends with the same status. Any
 * other error of the streams is thrown, as before.
 */
export function endQuietlyOnClosedPipe(streams: readonly NodeJS.WriteStream[] = [process.stdout, process.stderr]): void {
  let closing = false;
  const onError = (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
    // Every later write fails too (a graceful stop logs on stderr, maybe the same pipe): said once.
    if (closing) return;
    closing = true;
    process.exitCode = CLOSED_PIPE_STATUS;
    // Its listeners are called as a signal calls them (emitted, not sent: on Windows a SIGTERM sent to
    // oneself ends the process at once, listeners or not).
    if (process.listenerCount('SIGTERM') > 0) process.emit('SIGTERM', 'SIGTERM');
    else process.exit(CLOSED_PIPE_STATUS);
  };
  for (const stream of streams) stream.on('error', onError);
}
