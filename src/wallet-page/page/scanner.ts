// Reading a QR code with the device's camera, for Send: the rear camera where there is a choice, its live picture in
// a <video>, and its frames decoded until one holds a QR code. The browser's own BarcodeDetector decodes where it has
// one that reads QR codes (Chrome on Android and macOS, for example); elsewhere (Chromium on desktop Linux, Firefox)
// jsQR, bundled into the page, does. Decoding is the costly part on a phone, so a frame is read only after the one
// before is decoded, at most a few times a second, from the centre of the picture scaled down.
import jsQR from 'jsqr'

/** A camera that cannot be used, in words a person can act on. */
export class CameraProblem extends Error {}

/** Which decoder reads the frames. */
export type DecoderName = 'BarcodeDetector' | 'jsQR'

/** What this page uses of the Barcode Detection API, which TypeScript's DOM library does not declare. */
interface Detector { detect(source: HTMLCanvasElement): Promise<{ rawValue: string }[]> }
interface DetectorClass {
  new (options: { formats: string[] }): Detector
  getSupportedFormats(): Promise<string[]>
}

/** At most this many frames are decoded a second: a code is read within a moment, and a phone's battery is spared. */
const decodesPerSecond = 6
/**
 * The side, in pixels, of the square at the centre of the picture that is decoded (scaled down to it when the camera's
 * is larger): a person aims the code at the middle, and jsQR's cost grows with the pixels (a frame of 640 took about
 * twice as long as one of 480). At 480, an invoice's code of 61 modules filling half the square has 4 pixels a module,
 * plenty for either decoder.
 */
const decodedSide = 480
/**
 * One frame in this many is decoded with its light and dark swapped, for the codes some wallets show light on dark.
 * jsQR can try both on every frame, but that doubles the cost of the frames that hold no code, most frames while a
 * person aims.
 */
const invertedEvery = 4

type Decode = (canvas: HTMLCanvasElement, context: CanvasRenderingContext2D) => Promise<string | undefined>

async function browserDetector(): Promise<Detector | undefined> {
  const Class = (globalThis as { BarcodeDetector?: DetectorClass }).BarcodeDetector
  if (!Class) return undefined
  try {
    return (await Class.getSupportedFormats()).includes('qr_code') ? new Class({ formats: ['qr_code'] }) : undefined
  } catch {
    return undefined
  }
}

async function decoder(): Promise<{ name: DecoderName; decode: Decode }> {
  const detector = await browserDetector()
  if (detector) return { name: 'BarcodeDetector', decode: async canvas => (await detector.detect(canvas))[0]?.rawValue || undefined }
  let frames = 0
  return {
    name: 'jsQR',
    decode: async (canvas, context) => {
      const { data, width, height } = context.getImageData(0, 0, canvas.width, canvas.height)
      if (++frames % invertedEvery === 0) {
        for (let i = 0; i < data.length; i += 4) {
          data[i] = 255 - data[i]!
          data[i + 1] = 255 - data[i + 1]!
          data[i + 2] = 255 - data[i + 2]!
        }
      }
      return jsQR(data, width, height, { inversionAttempts: 'dontInvert' })?.data || undefined
    },
  }
}

/** What getUserMedia's refusal means for the person holding the phone. */
function problemOf(err: unknown): CameraProblem {
  const name = err instanceof Error || err instanceof DOMException ? err.name : ''
  switch (name) {
    case 'NotAllowedError':
      return new CameraProblem(
        'The camera was refused. To scan, allow this page to use the camera in the browser (the icon by the address, or the site settings), then press Scan again; or paste the invoice instead.',
      )
    case 'SecurityError':
      return new CameraProblem('This browser does not let this page use the camera. Paste the invoice instead.')
    case 'NotFoundError':
    case 'OverconstrainedError':
      return new CameraProblem('This device has no camera the page can use. Paste the invoice instead.')
    case 'NotReadableError':
    case 'AbortError':
      return new CameraProblem('The camera could not be started: another app may be using it. Close that app and press Scan again, or paste the invoice instead.')
    default:
      return new CameraProblem(`The camera could not be started (${name || String(err)}). Paste the invoice instead.`)
  }
}

/**
 * Opens the camera into `video` and decodes its frames until one holds a QR code: resolves with its text, or with
 * undefined once `signal` aborts first. Either way the camera is stopped, every track of it, before it settles.
 * Rejects with a CameraProblem when the camera cannot be opened. `onStarted` is told which decoder reads, once the
 * picture shows.
 */
export async function scanQr(video: HTMLVideoElement, signal: AbortSignal, onStarted: (decoder: DecoderName) => void): Promise<string | undefined> {
  // Browsers offer the camera only to a secure context (https, or localhost): elsewhere mediaDevices is missing.
  if (!navigator.mediaDevices?.getUserMedia) {
    throw new CameraProblem(
      'The camera can be used only on a page opened over https (or on this device as localhost), and this one was opened over plain http. Ask for an https link to the wallet, or paste the invoice instead.',
    )
  }
  const reader = decoder()
  let stream: MediaStream
  try {
    stream = await navigator.mediaDevices.getUserMedia({ audio: false, video: { facingMode: { ideal: 'environment' } } })
  } catch (err) {
    throw problemOf(err)
  }
  try {
    // Cancelled while the browser asked for the camera: it is closed again at once.
    if (signal.aborted) return undefined
    video.muted = true
    video.playsInline = true
    video.srcObject = stream
    try {
      await video.play()
    } catch (err) {
      if (signal.aborted) return undefined
      throw problemOf(err)
    }
    const { name, decode } = await reader
    if (signal.aborted) return undefined
    onStarted(name)
    return await firstCode(video, signal, decode)
  } finally {
    for (const track of stream.getTracks()) track.stop()
    video.srcObject = null
  }
}

/** Decodes frames of `video`, one after another and never two at once, until one holds a QR code or `signal` aborts. */
function firstCode(video: HTMLVideoElement, signal: AbortSignal, decode: Decode): Promise<string | undefined> {
  const canvas = document.createElement('canvas')
  const context = canvas.getContext('2d', { willReadFrequently: true })!
  let lastDecode = -Infinity
  return new Promise(resolve => {
    signal.addEventListener('abort', () => resolve(undefined), { once: true })
    // A callback per frame the camera shows where the browser has one; else per frame the screen paints.
    const nextFrame = () => {
      if (signal.aborted) return
      if (typeof video.requestVideoFrameCallback === 'function') video.requestVideoFrameCallback(now => void frame(now))
      else requestAnimationFrame(now => void frame(now))
    }
    const frame = async (now: number) => {
      if (signal.aborted) return
      if (now - lastDecode < 1000 / decodesPerSecond || video.videoWidth === 0) return nextFrame()
      lastDecode = now
      const side = Math.min(video.videoWidth, video.videoHeight)
      canvas.width = canvas.height = Math.min(side, decodedSide)
      context.drawImage(video, (video.videoWidth - side) / 2, (video.videoHeight - side) / 2, side, side, 0, 0, canvas.width, canvas.height)
      let text: string | undefined
      try {
        text = await decode(canvas, context)
      } catch {
        // A frame the decoder cannot take (the camera changing size, say) is skipped; the next may read.
      }
      if (signal.aborted) return
      if (text !== undefined) resolve(text)
      else nextFrame()
    }
    nextFrame()
  })
}
