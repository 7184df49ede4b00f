import { authorization } from './credential.js';

/**
 * Reads the server's event stream (`text/event-stream`) with fetch, so the request carries the
 * sign-in header (EventSource cannot send headers). Calls `onEvent` with each event's type and its
 * data (parsed JSON; undefined if it is not), and `onDown` when the stream ends or cannot be opened;
 * reconnecting is the caller's choice. Returns a function that closes the stream.
 */
export function openEventStream(
  url: string,
  onEvent: (type: string, data: unknown) => void,
  onDown: (status: number | null) => void,
  /** The stream is open: the server answers again. */
  onOpen: () => void = () => undefined,
): () => void {
  const controller = new AbortController();
  void (async () => {
    let status: number | null = null;
    try {
      const response = await fetch(url, {
        headers: { accept: 'text/event-stream', ...authorization() },
        credentials: 'omit',
        signal: controller.signal,
      });
      status = response.status;
      if (!response.ok || !response.body) throw new Error(`event stream answered ${response.status}`);
      onOpen();
      const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
      let buffer = '';
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += value;
        // Events are separated by a blank line. The figures are read again through /v1 by the refresh
        // an event triggers; the data is passed on for what /v1 does not keep (a warning's words).
        let end: number;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const type = /^event: (.+)$/m.exec(block)?.[1];
          if (type) onEvent(type, dataOf(block));
        }
      }
    } catch {
      // aborted by close(), or the network went away: reported below unless closed on purpose
    }
    if (!controller.signal.aborted) onDown(status);
  })();
  return () => controller.abort();
}

/** An event's `data:` lines (joined by newlines, as the format says) as JSON, or undefined. */
function dataOf(block: string): unknown {
  const lines = block.split('\n').filter((line) => line.startsWith('data:'));
  if (lines.length === 0) return undefined;
  try {
    return JSON.parse(lines.map((line) => line.slice(line.startsWith('data: ') ? 6 : 5)).join('\n'));
  } catch {
    return undefined;
  }
}
