// The CLI's view of a running download (`relaypay models download <name>`): a one-line bar redrawn from
// polled progress while the download request is open. Transport-free: the CLI passes its own calls in.
import type { DownloadProgress } from './registry.js'

const barWidth = 30

/** `[#########.....................]  30%  44.4 / 148.0 MB` */
export function formatProgressBar(progress: DownloadProgress, width = barWidth): string {
  const total = progress.total_bytes
  const fraction = total > 0 ? Math.min(progress.received_bytes / total, 1) : 0
  const filled = Math.floor(fraction * width)
  const percent = `${Math.floor(fraction * 100)}%`.padStart(4)
  const bar = `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}]`
  return `${bar} ${percent}  ${megabytes(progress.received_bytes)} / ${megabytes(total)} MB`
}

function megabytes(bytes: number): string {
  return (bytes / 1_000_000).toFixed(1)
}

export interface FollowDownloadOptions<T> {
  /** Starts the download and settles when it is over (the POST). */
  download(): Promise<T>
  /** Reads the progress (the GET). */
  progress(): Promise<DownloadProgress>
  /** Draws one line; the CLI rewrites the terminal line with it. */
  draw(line: string): void
  intervalMs?: number
}

/** Runs the download, redrawing the bar until it settles, then draws the final state once. */
export async function followDownload<T>(opts: FollowDownloadOptions<T>): Promise<T> {
  let settled = false
  let wake = () => {}
  const running = opts.download().finally(() => {
    settled = true
    wake()
  })
  const pause = () =>
    new Promise<void>(resolve => {
      const timer = setTimeout(resolve, opts.intervalMs ?? 250)
      wake = () => {
        clearTimeout(timer)
        resolve()
      }
    })
  const poll = async () => {
    while (!settled) {
      const progress = await opts.progress().catch(() => undefined) // a missed poll only delays the next frame
      if (progress && !settled) opts.draw(formatProgressBar(progress))
      if (!settled) await pause()
    }
  }
  const polling = poll()
  try {
    return await running
  } finally {
    await polling
    const final = await opts.progress().catch(() => undefined)
    if (final) opts.draw(formatProgressBar(final))
  }
}
