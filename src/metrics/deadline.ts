// Waiting on a part of the daemon that may hang: the wait ends after a bound, whatever the part does.

export class DeadlineExceeded extends Error {
  constructor(what: string, ms: number) {
    super(`${what} did not answer within ${ms} ms`)
    this.name = 'DeadlineExceeded'
  }
}

/**
 * Resolves or rejects like `work`, or rejects with DeadlineExceeded after `ms`. The timer is cleared as soon as the
 * work settles; it is not unref'd, since someone is waiting for the answer.
 */
export function withDeadline<T>(work: () => Promise<T>, ms: number, what: string): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new DeadlineExceeded(what, ms)), ms)
    Promise.resolve()
      .then(work)
      .then(
        value => {
          clearTimeout(timer)
          resolve(value)
        },
        err => {
          clearTimeout(timer)
          reject(err)
        },
      )
  })
}
