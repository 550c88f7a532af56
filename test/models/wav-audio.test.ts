// Uploaded WAV files become the engine's 16 kHz mono 16-bit PCM; everything else is refused with a reason.
import { suite } from '../support/suite.js'
import * as assert from 'uvu/assert'
import { AudioRejected, engineSampleRate, toEngineAudio } from '../../src/models/index.js'
import { testClipWav } from './synthetic-ggml.js'
import { wavFile } from './wav-files.js'

function header(wav: Buffer) {
  return {
    format: wav.readUInt16LE(20),
    channels: wav.readUInt16LE(22),
    rate: wav.readUInt32LE(24),
    bits: wav.readUInt16LE(34),
    dataBytes: wav.readUInt32LE(40),
  }
}

const reject = (file: Buffer): string => {
  try {
    toEngineAudio(file)
  } catch (err) {
    assert.instance(err, AudioRejected)
    return (err as AudioRejected).reason
  }
  throw new Error('expected the audio to be refused')
}

const wav = suite('WAV uploads → engine audio')

wav('a 16 kHz mono 16-bit clip passes through sample for sample', () => {
  const clip = testClipWav(2)
  const audio = toEngineAudio(clip)
  assert.equal(audio.wav, clip)
  assert.is(audio.durationMs, 2000)
})

for (const format of [
  { rate: 44_100, channels: 2, bits: 16 },
  { rate: 48_000, channels: 1, bits: 24 },
  { rate: 8_000, channels: 1, bits: 8 },
  { rate: 22_050, channels: 6, bits: 32 },
  { rate: 32_000, channels: 2, bits: 32, float: true },
  { rate: 48_000, channels: 2, bits: 16, extensible: true },
]) {
  wav(`converts ${JSON.stringify(format)} to 16 kHz mono 16-bit, keeping duration and level`, () => {
    const frames = format.rate * 1.5
    const audio = toEngineAudio(wavFile({ ...format, frames }))
    assert.equal(header(audio.wav), { format: 1, channels: 1, rate: engineSampleRate, bits: 16, dataBytes: 24_000 * 2 })
    assert.is(audio.durationMs, 1500)
    // A 0.5 amplitude tone stays near 0.5 after averaging equal channels and resampling.
    let peak = 0
    for (let i = 44; i < audio.wav.length; i += 2) peak = Math.max(peak, Math.abs(audio.wav.readInt16LE(i)) / 32767)
    assert.ok(peak > 0.45 && peak < 0.52, `peak ${peak}`)
  })
}

wav('going down in rate, sound above the new Nyquist frequency is damped rather than folded back at full level', () => {
  // 12 kHz cannot exist at 16 kHz; plain point sampling would fold it to a 4 kHz tone at the full 0.5.
  const audio = toEngineAudio(wavFile({ rate: 48_000, channels: 1, bits: 16, frames: 48_000, hz: 12_000 }))
  let peak = 0
  for (let i = 44; i < audio.wav.length; i += 2) peak = Math.max(peak, Math.abs(audio.wav.readInt16LE(i)) / 32767)
  assert.ok(peak < 0.2, `aliased peak ${peak}`)
})

wav('refuses what is not a WAV, naming common formats', () => {
  assert.match(reject(Buffer.from('hello, this is not audio')), /^audio must be a WAV file \(RIFF\/WAVE\); convert/)
  assert.match(reject(Buffer.from('ID3\u0004\u0000\u0000\u0000\u0000\u0000\u0000rest', 'latin1')), /got MP3/)
  assert.match(reject(Buffer.from('OggS\u0000\u0002rest-of-page', 'latin1')), /got Ogg/)
  assert.match(reject(Buffer.alloc(0)), /must be a WAV file/)
})

wav('refuses broken and unsupported WAV files with the reason', () => {
  const clip = testClipWav(2)
  const compressed = Buffer.from(clip)
  compressed.writeUInt16LE(85, 20) // MPEG layer 3 inside a WAV
  assert.match(reject(compressed), /unsupported WAV encoding \(format 85, 16 bit\)/)
  assert.match(reject(clip.subarray(0, 44)), /no audio samples/)
  assert.match(reject(clip.subarray(0, 30)), /truncated inside its 'fmt ' chunk/)
  const noData = Buffer.from(clip.subarray(0, 36))
  noData.writeUInt32LE(28, 4)
  assert.match(reject(noData), /no 'data' chunk/)
  const badAlign = Buffer.from(clip)
  badAlign.writeUInt16LE(4, 32)
  assert.match(reject(badAlign), /inconsistent WAV header/)
})

wav('a streaming writer’s unknown data size means "to the end of the file"', () => {
  const clip = Buffer.from(testClipWav(2))
  clip.writeUInt32LE(0xffffffff, 40)
  assert.is(toEngineAudio(clip).durationMs, 2000)
})

wav.run()
