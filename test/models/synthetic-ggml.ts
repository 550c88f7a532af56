// A synthetic whisper.cpp ggml model and a test clip, built byte for byte here (no download, no real weights): tiny
// random weights plus a forced-token trick, so the real engine loads it and transcribes any clip of 2 s or more as
// repeated " hello". Deterministic (1,853,961 bytes).

const nState = 16
const nMlp = 4 * nState
const nVocab = 51864
const nAudioCtx = 1500
const nTextCtx = 64
const nMels = 80
const nFft = 201
const helloToken = 100
const spaceToken = 220 // whisper.cpp's suppress_blank looks it up; missing, decoding throws
const vocabCount = 221

/** Little-endian writer over growing chunks. */
class ByteWriter {
  private chunks: Buffer[] = []
  int32(value: number) {
    const b = Buffer.alloc(4)
    b.writeInt32LE(value)
    this.chunks.push(b)
  }
  bytes(value: Uint8Array) {
    this.chunks.push(Buffer.from(value))
  }
  done(): Buffer {
    return Buffer.concat(this.chunks)
  }
}

/** The reference 32-bit LCG seeded with 1, one draw per random element, uniform in [-0.1, 0.1). */
function randomSource() {
  let s = 1
  return () => {
    s = (s * 1664525 + 1013904223) % 4294967296
    return (s / 4294967296 - 0.5) * 0.2
  }
}

const f32 = new Float32Array(1)
const u32 = new Uint32Array(f32.buffer)

/** Truncating float32 → float16 conversion, as the reference describes. */
function toHalf(value: number): number {
  f32[0] = value
  const x = u32[0]
  const sign = (x >>> 16) & 0x8000
  const e = ((x >>> 23) & 0xff) - 112
  const m = (x >>> 13) & 0x3ff
  if (e <= 0) return sign
  if (e >= 31) return sign | 0x7c00
  return sign | (e << 10) | m
}

const alternating = (j: number) => (j % 2 === 1 ? 1 : -1)

type Fill = 'random' | number | ((i: number, random: () => number) => number)

function isHalf(name: string): boolean {
  const layerNorm = name.endsWith('_ln.weight') || name.endsWith('ln_post.weight') || name === 'decoder.ln.weight'
  return name.endsWith('weight') && !layerNorm
}

function blockTensors(prefix: string, attentions: string[]): [string, number[], Fill][] {
  const S = nState
  const out: [string, number[], Fill][] = []
  for (const a of attentions) {
    out.push(
      [`${prefix}.${a}_ln.weight`, [S], 1],
      [`${prefix}.${a}_ln.bias`, [S], 0],
      [`${prefix}.${a}.query.weight`, [S, S], 'random'],
      [`${prefix}.${a}.query.bias`, [S], 'random'],
      [`${prefix}.${a}.key.weight`, [S, S], 'random'],
      [`${prefix}.${a}.value.weight`, [S, S], 'random'],
      [`${prefix}.${a}.value.bias`, [S], 'random'],
      [`${prefix}.${a}.out.weight`, [S, S], 'random'],
      [`${prefix}.${a}.out.bias`, [S], 'random'],
    )
  }
  out.push(
    [`${prefix}.mlp_ln.weight`, [S], 1],
    [`${prefix}.mlp_ln.bias`, [S], 0],
    [`${prefix}.mlp.0.weight`, [S, nMlp], 'random'],
    [`${prefix}.mlp.0.bias`, [nMlp], 'random'],
    [`${prefix}.mlp.2.weight`, [nMlp, S], 'random'],
    [`${prefix}.mlp.2.bias`, [S], 'random'],
  )
  return out
}

/** Builds the synthetic model file. */
export function syntheticGgmlModel(): Buffer {
  const S = nState
  const w = new ByteWriter()
  w.int32(0x67676d6c)
  for (const h of [nVocab, nAudioCtx, S, 1, 1, nTextCtx, S, 1, 1, nMels, 1]) w.int32(h)
  w.int32(nMels)
  w.int32(nFft)
  w.bytes(new Uint8Array(nMels * nFft * 4))
  w.int32(vocabCount)
  for (let i = 0; i < vocabCount; i++) {
    const token = Buffer.from(i === helloToken ? ' hello' : i === spaceToken ? ' ' : `t${i}`, 'utf8')
    w.int32(token.length)
    w.bytes(token)
  }

  const tensors: [string, number[], Fill][] = [
    ['encoder.positional_embedding', [S, nAudioCtx], 'random'],
    ['encoder.conv1.weight', [3, nMels, S], 'random'],
    ['encoder.conv1.bias', [1, S], 'random'],
    ['encoder.conv2.weight', [3, S, S], 'random'],
    ['encoder.conv2.bias', [1, S], 'random'],
    ...blockTensors('encoder.blocks.0', ['attn']),
    ['encoder.ln_post.weight', [S], 1],
    ['encoder.ln_post.bias', [S], 0],
    ['decoder.positional_embedding', [S, nTextCtx], 'random'],
    // Row 100 (" hello") is 10·b; the final layer norm below outputs b everywhere, so it wins every step.
    [
      'decoder.token_embedding.weight',
      [S, nVocab],
      (i, random) => (Math.floor(i / S) === helloToken ? 10 * alternating(i % S) : random()),
    ],
    ...blockTensors('decoder.blocks.0', ['attn', 'cross_attn']),
    ['decoder.ln.weight', [S], 0],
    ['decoder.ln.bias', [S], i => alternating(i)],
  ]

  const random = randomSource()
  for (const [name, ne, fill] of tensors) {
    const half = isHalf(name)
    const count = ne.reduce((a, b) => a * b, 1)
    const nameBytes = Buffer.from(name, 'utf8')
    w.int32(ne.length)
    w.int32(nameBytes.length)
    w.int32(half ? 1 : 0)
    for (const n of ne) w.int32(n)
    w.bytes(nameBytes)
    const data = Buffer.alloc(count * (half ? 2 : 4))
    for (let i = 0; i < count; i++) {
      const value = Math.fround(fill === 'random' ? random() : typeof fill === 'number' ? fill : fill(i, random))
      if (half) data.writeUInt16LE(toHalf(value), i * 2)
      else data.writeFloatLE(value, i * 4)
    }
    w.bytes(data)
  }
  return w.done()
}

/** A 16 kHz mono 16-bit WAV of a quiet tone with noise (the engine needs more than 1 s to say anything). */
export function testClipWav(seconds = 3): Buffer {
  const rate = 16000
  const samples = rate * seconds
  const out = Buffer.alloc(44 + samples * 2)
  out.write('RIFF', 0, 'ascii')
  out.writeUInt32LE(36 + samples * 2, 4)
  out.write('WAVE', 8, 'ascii')
  out.write('fmt ', 12, 'ascii')
  out.writeUInt32LE(16, 16) // fmt chunk size
  out.writeUInt16LE(1, 20) // PCM
  out.writeUInt16LE(1, 22) // mono
  out.writeUInt32LE(rate, 24)
  out.writeUInt32LE(rate * 2, 28) // byte rate
  out.writeUInt16LE(2, 32) // block align
  out.writeUInt16LE(16, 34) // bits per sample
  out.write('data', 36, 'ascii')
  out.writeUInt32LE(samples * 2, 40)
  const random = randomSource()
  for (let i = 0; i < samples; i++) {
    const value = 0.3 * Math.sin((2 * Math.PI * 440 * i) / rate) + random()
    out.writeInt16LE(Math.round(value * 32767), 44 + i * 2)
  }
  return out
}
