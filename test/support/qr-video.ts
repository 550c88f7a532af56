// A QR code as a video for Chromium's fake camera (--use-file-for-fake-video-capture=<file>.y4m): the camera then
// shows the code, still, for as long as it runs. Y4M is a header line, then per frame `FRAME\n` and the raw picture:
// here 640×480 in 4:2:0, the brightness plane (Y) holding the code (black on white, or white on black), both colour
// planes (U, V) at 128, no colour. Chromium plays the frames in a loop, so a few are enough.
import fs from 'node:fs'
import qrcode from 'qrcode-generator'

const width = 640
const height = 480
/** The white border a reader needs around the code, in modules (the QR specification's quiet zone). */
const quietZone = 4
const frames = 3

/**
 * Writes `text` as a QR code into `file`, as large as fits the picture with its quiet zone; `lightOnDark` swaps black
 * and white, as some wallets show their codes in dark mode.
 */
export function writeQrVideo(file: string, text: string, opts: { lightOnDark?: boolean } = {}): void {
  const qr = qrcode(0, 'M')
  // Capitals, digits and a few signs fit the denser alphanumeric mode, as wallets encode an invoice in capitals.
  qr.addData(text, /^[0-9A-Z $%*+\-./:]*$/.test(text) ? 'Alphanumeric' : 'Byte')
  qr.make()
  const modules = qr.getModuleCount()
  const scale = Math.floor(Math.min(width, height) / (modules + 2 * quietZone))
  if (scale < 2) throw new Error(`a QR code of ${modules} modules does not fit ${width}×${height} at 2 pixels a module`)
  const luma = Buffer.alloc(width * height, 255)
  const left = Math.floor((width - modules * scale) / 2)
  const top = Math.floor((height - modules * scale) / 2)
  for (let row = 0; row < modules; row++) {
    for (let col = 0; col < modules; col++) {
      if (!qr.isDark(row, col)) continue
      for (let y = top + row * scale; y < top + (row + 1) * scale; y++) luma.fill(0, y * width + left + col * scale, y * width + left + (col + 1) * scale)
    }
  }
  if (opts.lightOnDark) for (let i = 0; i < luma.length; i++) luma[i] = 255 - luma[i]!
  writeY4m(file, luma)
}

/** Writes a picture with no code in it (plain white) into `file`: the camera runs and reads nothing. */
export function writeBlankVideo(file: string): void {
  writeY4m(file, Buffer.alloc(width * height, 255))
}

/** `luma` as the brightness of a few colourless frames. */
function writeY4m(file: string, luma: Buffer): void {
  const frame = Buffer.concat([Buffer.from('FRAME\n'), luma, Buffer.alloc((width / 2) * (height / 2) * 2, 128)])
  const header = Buffer.from(`YUV4MPEG2 W${width} H${height} F30:1 Ip A1:1 C420jpeg\n`)
  fs.writeFileSync(file, Buffer.concat([header, ...Array<Buffer>(frames).fill(frame)]))
}
