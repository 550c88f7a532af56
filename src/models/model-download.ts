// One model file transfer: stream the body into a temporary file beside the cache, hash and count it on the way,
// and rename it into place only when size and SHA-1 match. A partial or corrupt file therefore never sits under
// the final name, and `downloaded` (final file with the catalogue size) stays a cheap stat.
import { createHash } from 'node:crypto'
import fs from 'node:fs/promises'
import path from 'node:path'

/** Why a transfer failed, written for the caller: it becomes `Model download failed: <reason>`. */
export class DownloadFailure extends Error {
  constructor(readonly reason: string) {
    super(reason)
    this.name = 'DownloadFailure'
  }
}

export interface TransferTarget {
  url: string
  tempFile: string
  finalFile: string
  bytes: number
  sha1: string
}

export interface TransferOptions {
  fetch: typeof globalThis.fetch
  /** Abort when no byte arrives for this long, from the request until the last chunk. */
  stallTimeoutMs: number
  /** Aborting it stops the transfer with reason `aborted`. */
  signal: AbortSignal
  onProgress(receivedBytes: number): void
}

/** Downloads and verifies one file; throws DownloadFailure and leaves no temporary file behind on any failure. */
export async function transferModelFile(target: TransferTarget, opts: TransferOptions): Promise<void> {
  const controller = new AbortController()
  // Set just before aborting, so the error the stream throws can be told apart from a dropped connection.
  let abortReason: string | undefined
  const abort = (reason: string) => {
    abortReason ??= reason
    controller.abort()
  }
  const onCallerAbort = () => abort('aborted')
  if (opts.signal.aborted) throw new DownloadFailure('aborted')
  opts.signal.addEventListener('abort', onCallerAbort, { once: true })
  const stall = setTimeout(() => abort(`timed out: no data received for ${opts.stallTimeoutMs} ms`), opts.stallTimeoutMs)

  let file: fs.FileHandle | undefined
  try {
    await fs.mkdir(path.dirname(target.tempFile), { recursive: true })
    // Only this process uses this temporary name (pid in it) and only one transfer per model runs here, so
    // anything under it is a leftover of a crashed earlier run with the same pid (containers reuse pid 1).
    await fs.rm(target.tempFile, { force: true })

    const response = await fetchHeaders(target.url, opts.fetch, controller.signal, () => abortReason)
    stall.refresh()
    if (!response.ok || !response.body) {
      await response.body?.cancel().catch(() => undefined) // the status is the failure; the body is noise
      throw new DownloadFailure(`HTTP ${response.status} ${response.statusText}`.trim())
    }

    file = await openTemp(target.tempFile)
    const hash = createHash('sha1')
    let received = 0
    try {
      for await (const chunk of response.body) {
        stall.refresh()
        received += chunk.byteLength
        // Stop early rather than fill the disk with a file that can never verify.
        if (received > target.bytes) throw new DownloadFailure(`size mismatch (more than ${target.bytes} bytes)`)
        hash.update(chunk)
        await writeChunk(file, chunk)
        opts.onProgress(received)
      }
    } catch (err) {
      if (err instanceof DownloadFailure) throw err
      throw new DownloadFailure(abortReason ?? `connection lost after ${received} of ${target.bytes} bytes`)
    }
    if (abortReason) throw new DownloadFailure(abortReason)
    if (received !== target.bytes) {
      throw new DownloadFailure(`size mismatch (got ${received}, expected ${target.bytes})`)
    }
    if (hash.digest('hex') !== target.sha1.toLowerCase()) throw new DownloadFailure('checksum mismatch')

    await file.sync() // the rename must not publish a file whose bytes are still only in the page cache
    await file.close()
    file = undefined
    await fs.rename(target.tempFile, target.finalFile)
  } catch (err) {
    await file?.close().catch(() => undefined) // already failing; the close error would hide the reason
    await fs.rm(target.tempFile, { force: true })
    if (err instanceof DownloadFailure) throw err
    throw new DownloadFailure(fileSystemReason(err))
  } finally {
    clearTimeout(stall)
    opts.signal.removeEventListener('abort', onCallerAbort)
  }
}

async function fetchHeaders(
  url: string,
  fetchImpl: typeof globalThis.fetch,
  signal: AbortSignal,
  abortReason: () => string | undefined,
): Promise<Response> {
  try {
    return await fetchImpl(url, { redirect: 'follow', signal })
  } catch (err) {
    throw new DownloadFailure(abortReason() ?? `fetch failed (${causeOf(err)})`)
  }
}

async function openTemp(file: string): Promise<fs.FileHandle> {
  try {
    return await fs.open(file, 'wx', 0o600)
  } catch (err) {
    throw new DownloadFailure(fileSystemReason(err))
  }
}

async function writeChunk(file: fs.FileHandle, chunk: Uint8Array): Promise<void> {
  try {
    await file.write(chunk)
  } catch (err) {
    throw new DownloadFailure(fileSystemReason(err))
  }
}

/** undici reports network failures as `TypeError: fetch failed` with the real error as its cause. */
function causeOf(err: unknown): string {
  const cause = (err as { cause?: { code?: unknown; message?: unknown } } | undefined)?.cause
  if (typeof cause?.code === 'string') return cause.code
  if (typeof cause?.message === 'string') return cause.message
  return err instanceof Error ? err.message : String(err)
}

/** Node's fs messages carry local paths; callers get the error code only. */
function fileSystemReason(err: unknown): string {
  const code = (err as { code?: unknown } | undefined)?.code
  return typeof code === 'string' ? `cannot write the model file (${code})` : 'cannot write the model file'
}
