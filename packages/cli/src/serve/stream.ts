/**
 * Sending a page in parts. Once the first part is out the status is sent too, so a failure later
 * cannot become an error page: the page ends with a notice instead (no detail in it), and the
 * error goes to the server's log.
 */
import type { Context } from "hono";

const FAILED =
  '<div class="panel empty">The rest of this page could not be read. The server\'s terminal has the details.</div></main></body></html>';

export function streamHtml(
  c: Context,
  parts: AsyncIterator<string>,
  onError: (error: unknown) => void,
): Response {
  const encoder = new TextEncoder();
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const next = await parts.next();
        if (next.done) controller.close();
        else controller.enqueue(encoder.encode(next.value));
      } catch (error) {
        onError(error);
        controller.enqueue(encoder.encode(FAILED));
        controller.close();
      }
    },
    async cancel() {
      await parts.return?.(undefined);
    },
  });
  return c.body(body, 200, { "Content-Type": "text/html; charset=UTF-8" });
}
