// WAV files in formats other than the engine's, to test conversion: a tone at half scale, every channel equal.

export interface WavFileFormat {
  rate: number
  channels: number
  bits: number
  float?: boolean
  /** WAVE_FORMAT_EXTENSIBLE header instead of the plain one. */
  extensible?: boolean
  frames: number
  /** Tone frequency (default 440 Hz). */
  hz?: number
}

/** A WAV with the given format around `frames` frames of the tone. */
export function wavFile(opts: WavFileFormat): Buffer {
  const bytes = opts.bits / 8
  const block = bytes * opts.channels
  const fmtSize = opts.extensible ? 40 : 16
  const out = Buffer.alloc(12 + 8 + fmtSize + 8 + opts.frames * block)
  out.write('RIFF', 0, 'ascii')
  out.writeUInt32LE(out.length - 8, 4)
  out.write('WAVE', 8, 'ascii')
  out.write('fmt ', 12, 'ascii')
  out.writeUInt32LE(fmtSize, 16)
  const code = opts.float ? 3 : 1
  out.writeUInt16LE(opts.extensible ? 0xfffe : code, 20)
  out.writeUInt16LE(opts.channels, 22)
  out.writeUInt32LE(opts.rate, 24)
  out.writeUInt32LE(opts.rate * block, 28)
  out.writeUInt16LE(block, 32)
  out.writeUInt16LE(opts.bits, 34)
  if (opts.extensible) {
    out.writeUInt16LE(22, 36) // cbSize
    out.writeUInt16LE(opts.bits, 38)
    out.writeUInt32LE(0, 40) // channel mask
    out.writeUInt16LE(code, 44) // sub-format GUID starts with the format code
  }
  const dataAt = 20 + fmtSize
  out.write('data', dataAt, 'ascii')
  out.writeUInt32LE(opts.frames * block, dataAt + 4)
  for (let frame = 0; frame < opts.frames; frame++) {
    const value = 0.5 * Math.sin((2 * Math.PI * (opts.hz ?? 440) * frame) / opts.rate)
    for (let channel = 0; channel < opts.channels; channel++) {
      const at = dataAt + 8 + frame * block + channel * bytes
      if (opts.float) out.writeFloatLE(value, at)
      else if (opts.bits === 8) out[at] = Math.round(value * 127) + 128
      else if (opts.bits === 16) out.writeInt16LE(Math.round(value * 32767), at)
      else if (opts.bits === 24) out.writeIntLE(Math.round(value * 8388607), at, 3)
      else out.writeInt32LE(Math.round(value * 2147483647), at)
    }
  }
  return out
}
