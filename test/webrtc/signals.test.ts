// The checks a caller's offer and candidates pass before werift sees them, and the data packet framing of the
// metrics channel, decoded here independently of the encoder.
import { suite } from '../support/suite.js'
import * as assert from 'uvu/assert'
import { OperationError } from '../../src/bus/errors.js'
import { candidateMessage, keepCandidates, parseCandidate, parseOffer } from '../../src/webrtc/signals.js'
import { channelError, dataPackets, parseChannelRequest } from '../../src/webrtc/metrics-channel.js'
import { decodeDataPacket } from './data-packets.js'

const dataChannelSdp = [
  'v=0',
  'o=- 1 0 IN IP4 0.0.0.0',
  's=-',
  't=0 0',
  'a=group:BUNDLE 0',
  'm=application 9 UDP/DTLS/SCTP webrtc-datachannel',
  'c=IN IP4 0.0.0.0',
  'a=ice-ufrag:abcd',
  'a=ice-pwd:0123456789abcdef0123456789',
  'a=fingerprint:sha-256 00:11',
  'a=setup:actpass',
  'a=mid:0',
  'a=sctp-port:5000',
  'a=candidate:1 1 udp 2116026367 127.0.0.1 40000 typ host',
  'a=candidate:2 1 udp 2116026367 192.0.2.7 40001 typ host',
  '',
].join('\r\n')

const rejects = (work: () => unknown, reason: RegExp) => {
  try {
    work()
  } catch (err) {
    assert.instance(err, OperationError)
    assert.is((err as OperationError).code, 'invalid_input')
    assert.match((err as Error).message, reason)
    return
  }
  assert.unreachable(`accepted, expected ${reason}`)
}

const signals = suite('WebRTC signalling input')

signals('a data-channel offer passes; anything else is refused with the reason', () => {
  assert.equal(parseOffer(JSON.stringify({ type: 'offer', sdp: dataChannelSdp })), { type: 'offer', sdp: dataChannelSdp })
  rejects(() => parseOffer('v=0'), /not JSON/)
  rejects(() => parseOffer('[]'), /JSON object/)
  rejects(() => parseOffer(JSON.stringify({ type: 'answer', sdp: dataChannelSdp })), /type "offer"/)
  rejects(() => parseOffer(JSON.stringify({ type: 'offer', sdp: 'hello' })), /not an SDP/)
  const audio = dataChannelSdp.replace('m=application 9 UDP/DTLS/SCTP webrtc-datachannel', 'm=audio 9 UDP/TLS/RTP/SAVPF 111')
  rejects(() => parseOffer(JSON.stringify({ type: 'offer', sdp: audio })), /exactly one media section/)
  const twoSections = dataChannelSdp + 'm=audio 9 UDP/TLS/RTP/SAVPF 111\r\n'
  rejects(() => parseOffer(JSON.stringify({ type: 'offer', sdp: twoSections })), /exactly one media section/)
  rejects(() => parseOffer(JSON.stringify({ type: 'offer', sdp: dataChannelSdp.replace(/a=fingerprint.*\r\n/, '') })), /a=fingerprint/)
  rejects(() => parseOffer(JSON.stringify({ type: 'offer', sdp: dataChannelSdp + 'x'.repeat(40_000) })), /longer than/)
})

signals('candidates: a line with its section, the end marker, and malformed ones', () => {
  const line = 'candidate:1 1 udp 2116026367 127.0.0.1 40000 typ host generation 0 ufrag abcd'
  assert.equal(parseCandidate(JSON.stringify({ type: 'candidate', candidate: line, sdpMid: '0', sdpMLineIndex: 0 })), {
    candidate: line,
    sdpMid: '0',
    sdpMLineIndex: 0,
  })
  assert.equal(parseCandidate(JSON.stringify({ candidate: line })), { candidate: line, sdpMLineIndex: 0 })
  assert.is(parseCandidate(JSON.stringify({ type: 'candidate' })), undefined)
  assert.is(parseCandidate(JSON.stringify({ candidate: '' })), undefined)
  // browsers hide host addresses behind mDNS names
  assert.ok(parseCandidate(JSON.stringify({ candidate: 'candidate:9 1 udp 2113937151 0f1e2d3c-aaaa.local 51234 typ host', sdpMid: '0' })))
  rejects(() => parseCandidate('nope'), /not JSON/)
  rejects(() => parseCandidate(JSON.stringify({ candidate: 'garbage', sdpMid: '0' })), /not an ICE candidate line/)
  rejects(() => parseCandidate(JSON.stringify({ candidate: 'candidate:1 1 udp 1 127.0.0.1 70000 typ host' })), /not an ICE candidate line/)
  rejects(() => parseCandidate(JSON.stringify({ candidate: 'candidate:1 1 udp 1 127.0.0.1 x typ host' })), /not an ICE candidate line/)
  rejects(() => parseCandidate(JSON.stringify({ candidate: line, sdpMLineIndex: -1 })), /sdpMLineIndex/)
  rejects(() => parseCandidate(JSON.stringify({ candidate: line, sdpMid: 3 })), /sdpMid/)
  rejects(() => parseCandidate(JSON.stringify({ candidate: line + ' x'.repeat(600) })), /longer than/)
})

signals('pushed candidates have upstream shape; only allowed addresses stay in an answer', () => {
  assert.equal(JSON.parse(candidateMessage({ candidate: 'candidate:1', sdpMid: '0', sdpMLineIndex: 0 })), {
    type: 'candidate',
    candidate: 'candidate:1',
    sdpMid: '0',
    sdpMLineIndex: 0,
  })
  assert.equal(JSON.parse(candidateMessage()), { type: 'candidate' })
  const kept = keepCandidates(dataChannelSdp, address => address === '127.0.0.1')
  assert.match(kept, /127\.0\.0\.1 40000/)
  assert.not.match(kept, /192\.0\.2\.7/)
  assert.ok(kept.endsWith('\r\n'))
})

const channel = suite('the metrics data channel')

channel('requests are SingleMetricReq JSON, text or UTF-8 bytes; without metric_type a usage file is meant', () => {
  const request = { app_id: '', metrics_name: 'GetErrorStats', page: 0 }
  assert.equal(parseChannelRequest(JSON.stringify(request)), { ...request, metric_type: 'USAGE_METRIC' })
  assert.equal(parseChannelRequest(Buffer.from(JSON.stringify(request))), { ...request, metric_type: 'USAGE_METRIC' })
  const bundle = { ...request, metric_type: 'BUNDLE_METRIC', request_id: 77 }
  assert.equal(parseChannelRequest(JSON.stringify(bundle)), bundle)
  assert.equal(parseChannelRequest(JSON.stringify({ ...bundle, request_id: 0 })), { ...request, metric_type: 'BUNDLE_METRIC' })
  rejects(() => parseChannelRequest(JSON.stringify({ ...request, metric_type: 'OTHER' })), /invalid request body/)
  rejects(() => parseChannelRequest(JSON.stringify({ ...request, request_id: 2 ** 32 })), /request_id/)
  rejects(() => parseChannelRequest('hello'), /not JSON/)
  rejects(() => parseChannelRequest(JSON.stringify({ app_id: '', metrics_name: 'x', page: '0' })), /invalid request body/)
  rejects(() => parseChannelRequest(JSON.stringify({ ...request, pad: 'x'.repeat(5000) })), /longer than 4096/)
})

channel('a file travels as 15 000-byte pieces in TLbV data packets sharing one data id', () => {
  const file = Buffer.alloc(31_234)
  for (let i = 0; i < file.length; i++) file[i] = (i * 7) % 251
  const packets = dataPackets(file, 0x12345678).map(decodeDataPacket)
  assert.equal(
    packets.map(({ dataId, packetNum, totalPackets, data }) => ({ dataId, packetNum, totalPackets, size: data.length })),
    [
      { dataId: 0x12345678, packetNum: 1, totalPackets: 3, size: 15_000 },
      { dataId: 0x12345678, packetNum: 2, totalPackets: 3, size: 15_000 },
      { dataId: 0x12345678, packetNum: 3, totalPackets: 3, size: 1234 },
    ],
  )
  assert.ok(Buffer.concat(packets.map(packet => packet.data)).equals(file))
  // upstream writes the entries from the highest type down: data first
  assert.is(dataPackets(Buffer.from([1, 2, 3]), 1)[0]![0], 5)
  const empty = dataPackets(new Uint8Array(0), 9).map(decodeDataPacket)
  assert.equal(empty.map(packet => [packet.packetNum, packet.totalPackets, packet.data.length]), [[1, 1, 0]])
})

channel('errors are text messages; an unexpected error does not leak its message', () => {
  assert.equal(JSON.parse(channelError(new OperationError('not_found', 'no such file'))), { status: 'ERROR', reason: 'no such file' })
  assert.equal(JSON.parse(channelError(new Error('EACCES /secret/path'))), { status: 'ERROR', reason: 'internal error' })
})

signals.run()
channel.run()
