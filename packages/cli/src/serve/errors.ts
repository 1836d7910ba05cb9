/**
 * Error pages. They say what went wrong in words for the reader and never carry an exception's
 * message, a stack or a file path: details of an unexpected failure go to the server's stderr.
 */
import type { Context } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { html } from "./html.js";
import { page } from "./layout.js";

export function errorPage(c: Context, status: ContentfulStatusCode, title: string, text: string): Response {
  const body = html`<div class="error-page"><h1>${status}</h1><h2>${title}</h2><p>${text}</p><p><a href="/sessions">Back to the sessions</a></p></div>`;
  return c.html(page({ title, section: "none", body }).toString(), status);
}
