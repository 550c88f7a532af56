// Uploaded audio → the 16 kHz mono 16-bit PCM WAV whisper.cpp is trained on. Any PCM or IEEE-float WAV is
// accepted and converted here (channels averaged, sample rate changed), so what is stored and transcribed is
// always one known format and its duration is exact. Compressed formats (MP3, Ogg, FLAC, AAC) are refused:
// decoding them would need a codec library the daemon does not carry.

/** whisper.cpp's input rate (WHISPER_SAMPLE_RATE). */
export const engineSampleRate = 16_000

export class AudioRejected extends Error {
  constructor(readonly reason: string) {
    super(reason)
    this.name = 'AudioRejected'
  }
}

export interface EngineAudio {
  /** A canonical 44-byte-header WAV: PCM, 16 kHz, mono, 16 bit. */
  wav: Buffer
  durationMs: number
}

interface WavFormat {
  /** 1 = integer PCM, 3 = IEEE float (WAVE_FORMAT_EXTENSIBLE resolved to its sub-format). */
  encoding: number
  channels: number
  sampleRate: number
  blockAlign: number
  bitsPerSample: number
}

const formatPcm = 1
const formatFloat = 3
const formatExtensible = 0xfffe
const maxChannels = 16
const minSampleRate = 1_000
const maxSampleRate = 384_000
const convertHint = 'convert it first, e.g. `ffmpeg -i input -ar 16000 -ac 1 -c:a pcm_s16le output.wav`'

/** Decodes a WAV upload into engine audio, or throws AudioRejected with a reason a person can act on. */
export function toEngineAudio(file: Buffer): EngineAudio {
  if (file.length < 12 || file.toString('ascii', 0, 4) !== 'RIFF' || file.toString('ascii', 8, 12) !== 'WAVE') {
    throw new AudioRejected(`audio must be a WAV file (RIFF/WAVE)${describeOtherFormat(file)}; ${convertHint}`)
  }
  let format: WavFormat | undefined
  let data: Buffer | undefined
  let offset = 12
  while (offset + 8 <= file.length && data === undefined) {
    const id = file.toString('ascii', offset, offset + 4)
    const declared = file.readUInt32LE(offset + 4)
    const start = offset + 8
    // Streaming writers leave the data size at 0 or 0xFFFFFFFF: the data then runs to the end of the file.
    const end = id === 'data' && (declared === 0 || start + declared > file.length) ? file.length : start + declared
    if (end > file.length) throw new AudioRejected(`the WAV file is truncated inside its '${id}' chunk`)
    if (id === 'fmt ') format = readFormat(file.subarray(start, end))
    else if (id === 'data') data = file.subarray(start, end)
    offset = end + (declared % 2) // chunks are padded to an even size
  }
  if (!format) throw new AudioRejected("the WAV file has no 'fmt ' chunk before its audio data")
  if (!data) throw new AudioRejected("the WAV file has no 'data' chunk")
  const frames = Math.floor(data.length / format.blockAlign)
  if (frames === 0) throw new AudioRejected('the WAV file contains no audio samples')
  const durationMs = (samples: number) => Math.round((samples * 1000) / engineSampleRate)
  const native = format.encoding === formatPcm && format.bitsPerSample === 16 && format.channels === 1
  if (native && format.sampleRate === engineSampleRate) {
    // Already the engine's format: the samples are kept bit for bit, only the header is made canonical.
    const pcm = data.subarray(0, frames * format.blockAlign)
    return { wav: Buffer.concat([wavHeader(pcm.length), pcm]), durationMs: durationMs(frames) }
  }
  const mono = downmix(data, frames, format)
  const samples = format.sampleRate === engineSampleRate ? mono : resample(mono, format.sampleRate, engineSampleRate)
  return { wav: pcm16Wav(samples), durationMs: durationMs(samples.length) }
}

function readFormat(chunk: Buffer): WavFormat {
  if (chunk.length < 16) throw new AudioRejected("the WAV 'fmt ' chunk is too short")
  let encoding = chunk.readUInt16LE(0)
  const channels = chunk.readUInt16LE(2)
  const sampleRate = chunk.readUInt32LE(4)
  const blockAlign = chunk.readUInt16LE(12)
  const bitsPerSample = chunk.readUInt16LE(14)
  // WAVE_FORMAT_EXTENSIBLE names the real encoding in the first two bytes of its sub-format GUID.
  if (encoding === formatExtensible && chunk.length >= 26) encoding = chunk.readUInt16LE(24)
  const supported =
    (encoding === formatPcm && [8, 16, 24, 32].includes(bitsPerSample)) ||
    (encoding === formatFloat && [32, 64].includes(bitsPerSample))
  if (!supported) {
    throw new AudioRejected(
      `unsupported WAV encoding (format ${encoding}, ${bitsPerSample} bit): expected PCM (8, 16, 24 or 32 bit) or ` +
        `IEEE float (32 or 64 bit); ${convertHint}`,
    )
  }
  if (channels < 1 || channels > maxChannels) throw new AudioRejected(`unsupported WAV channel count ${channels}`)
  if (sampleRate < minSampleRate || sampleRate > maxSampleRate) {
    throw new AudioRejected(`unsupported WAV sample rate ${sampleRate} Hz (expected ${minSampleRate}–${maxSampleRate})`)
  }
  if (blockAlign !== (channels * bitsPerSample) / 8) {
    throw new AudioRejected(`inconsistent WAV header: block align ${blockAlign} for ${channels} × ${bitsPerSample} bit`)
  }
  return { encoding, channels, sampleRate, blockAlign, bitsPerSample }
}

/** One sample in [-1, 1] per frame: the average of the channels. */
function downmix(data: Buffer, frames: number, format: WavFormat): Float32Array {
  const read = sampleReader(format)
  const bytes = format.bitsPerSample / 8
  const out = new Float32Array(frames)
  for (let frame = 0; frame < frames; frame++) {
    let sum = 0
    const base = frame * format.blockAlign
    for (let channel = 0; channel < format.channels; channel++) sum += read(data, base + channel * bytes)
    out[frame] = sum / format.channels
  }
  return out
}

function sampleReader(format: WavFormat): (data: Buffer, at: number) => number {
  if (format.encoding === formatFloat) {
    return format.bitsPerSample === 32 ? (d, at) => d.readFloatLE(at) : (d, at) => d.readDoubleLE(at)
  }
  switch (format.bitsPerSample) {
    case 8:
      return (d, at) => (d[at]! - 128) / 128 // 8-bit WAV is unsigned
    case 16:
      return (d, at) => d.readInt16LE(at) / 32768
    case 24:
      return (d, at) => d.readIntLE(at, 3) / 8388608
    default:
      return (d, at) => d.readInt32LE(at) / 2147483648
  }
}

/**
 * Changes the sample rate. Going down, each output sample averages the input samples its interval covers (a box
 * filter, which keeps most aliasing out of the speech band); going up, it interpolates linearly.
 */
export function resample(input: Float32Array, fromRate: number, toRate: number): Float32Array {
  const outLength = Math.max(1, Math.floor((input.length * toRate) / fromRate))
  const out = new Float32Array(outLength)
  const step = fromRate / toRate
  if (step > 1) {
    for (let i = 0; i < outLength; i++) {
      const start = Math.floor(i * step)
      const end = Math.min(input.length, Math.max(start + 1, Math.floor((i + 1) * step)))
      let sum = 0
      for (let j = start; j < end; j++) sum += input[j]!
      out[i] = sum / (end - start)
    }
    return out
  }
  for (let i = 0; i < outLength; i++) {
    const position = i * step
    const left = Math.floor(position)
    const right = Math.min(left + 1, input.length - 1)
    const weight = position - left
    out[i] = input[left]! * (1 - weight) + input[right]! * weight
  }
  return out
}

/** A canonical WAV (PCM, 16 kHz, mono, 16 bit) of the samples, clipped to [-1, 1]. */
function pcm16Wav(samples: Float32Array): Buffer {
  const out = Buffer.concat([wavHeader(samples.length * 2), Buffer.alloc(samples.length * 2)])
  for (let i = 0; i < samples.length; i++) {
    const clipped = Math.max(-1, Math.min(1, samples[i]!))
    out.writeInt16LE(Math.round(clipped * 32767), 44 + i * 2)
  }
  return out
}

/** The 44-byte canonical header of a PCM, 16 kHz, mono, 16-bit WAV with `dataBytes` of samples. */
function wavHeader(dataBytes: number): Buffer {
  const out = Buffer.alloc(44)
  out.write('RIFF', 0, 'ascii')
  out.writeUInt32LE(36 + dataBytes, 4)
  out.write('WAVE', 8, 'ascii')
  out.write('fmt ', 12, 'ascii')
  out.writeUInt32LE(16, 16)
  out.writeUInt16LE(formatPcm, 20)
  out.writeUInt16LE(1, 22)
  out.writeUInt32LE(engineSampleRate, 24)
  out.writeUInt32LE(engineSampleRate * 2, 28)
  out.writeUInt16LE(2, 32)
  out.writeUInt16LE(16, 34)
  out.write('data', 36, 'ascii')
  out.writeUInt32LE(dataBytes, 40)
  return out
}

/** Names a common non-WAV format, so the caller knows what they sent. */
function describeOtherFormat(file: Buffer): string {
  const head = file.toString('latin1', 0, 4)
  if (head.startsWith('ID3') || (file[0] === 0xff && (file[1]! & 0xe0) === 0xe0)) return ', got MP3'
  if (head === 'OggS') return ', got Ogg'
  if (head === 'fLaC') return ', got FLAC'
  if (file.toString('latin1', 4, 8) === 'ftyp') return ', got MP4/M4A'
  if (file[0] === 0x1a && file[1] === 0x45 && file[2] === 0xdf && file[3] === 0xa3) return ', got WebM/Matroska'
  return ''
}
