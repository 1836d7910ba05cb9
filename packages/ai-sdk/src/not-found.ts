/** Whether `error` says the session does not exist (by its stable code, so a second copy of
 * core's classes in a bundle does not matter): a chat never saved. */
export function isSessionNotFound(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === "SESSION_NOT_FOUND";
}
