// Waiting in a test for something the daemon does on its own time (a log line, a reconnect, a settlement): the check
// is polled every 50 ms until it holds, and the test fails with `what` if it does not within `timeoutMs` (generous:
// it only bounds how long a failing test takes, and loaded CI machines are slow).
export async function until(check: () => boolean | Promise<boolean>, what: string, timeoutMs = 30_000): Promise<void> {
  const started = Date.now()
  while (!(await check())) {
    if (Date.now() - started > timeoutMs) throw new Error(`timed out waiting for ${what}`)
    await new Promise(resolve => setTimeout(resolve, 50))
  }
}
