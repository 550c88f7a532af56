// What a metrics caller sends through SubmitWebRtcMessage, and what we send back, as upstream frames them: the
// offer is a JSON RTCSessionDescription `{type:"offer", sdp}`, a candidate a JSON `{candidate, sdpMid,
// sdpMLineIndex}` (upstream adds `type:"candidate"`; a missing candidate means the end of candidates).
// werift accepts almost any text as SDP and any string as a candidate, so the checks that give a caller a clear
// answer live here, before werift sees anything.
import { OperationError } from '../bus/index.js'

/** Far above a data-channel offer (about 1 KB plus a line per candidate); a relay event is smaller anyway. */
export const maxOfferBytes = 32 * 1024
/** A candidate line is under 200 bytes; the limit leaves room for extensions such as network-cost. */
export const maxCandidateBytes = 1024

export interface OfferDescription {
  type: 'offer'
  sdp: string
}

export interface RemoteCandidate {
  candidate: string
  sdpMid?: string
  sdpMLineIndex?: number
}

/**
 * The caller's offer. It must offer exactly one data-channel section: the upgrade carries metrics, not media, and
 * werift would otherwise answer audio or video it has nothing to send on.
 */
export function parseOffer(text: string): OfferDescription {
  if (Buffer.byteLength(text) > maxOfferBytes) throw invalid(`offer is longer than ${maxOfferBytes} bytes`)
  const value = parseJson(text, 'offer')
  if (value.type !== 'offer') throw invalid('offer must be a JSON RTCSessionDescription with type "offer"')
  const sdp = value.sdp
  if (typeof sdp !== 'string' || !sdp.startsWith('v=0')) throw invalid('offer.sdp is not an SDP session description (v=0 …)')
  const lines = sdp.split(/\r?\n/)
  const media = lines.filter(line => line.startsWith('m='))
  if (media.length !== 1 || !/^m=application \d+ (UDP|TCP)\/DTLS\/SCTP webrtc-datachannel\b/.test(media[0]!)) {
    throw invalid('offer must have exactly one media section, an "m=application … webrtc-datachannel" data channel')
  }
  for (const attribute of ['a=ice-ufrag:', 'a=ice-pwd:', 'a=fingerprint:']) {
    if (!lines.some(line => line.startsWith(attribute))) throw invalid(`offer.sdp has no ${attribute.slice(0, -1)} line`)
  }
  return { type: 'offer', sdp }
}

/**
 * RFC 8839 §5.1: `candidate:<foundation> <component> <transport> <priority> <address> <port> typ <type> …`.
 * The address is an IP or an mDNS name (browsers hide host addresses behind `<uuid>.local`).
 */
const candidateLine =
  /^(?:a=)?candidate:[A-Za-z0-9+/]{1,32} [0-9]{1,3} (?:udp|tcp|UDP|TCP) [0-9]{1,10} [0-9A-Za-z.:%-]{1,253} ([0-9]{1,5}) typ (?:host|srflx|prflx|relay)(?: [\x21-\x7e]+)*$/

/** The caller's candidate; undefined for the end-of-candidates marker (nothing to add). */
export function parseCandidate(text: string): RemoteCandidate | undefined {
  if (Buffer.byteLength(text) > maxCandidateBytes) throw invalid(`candidate is longer than ${maxCandidateBytes} bytes`)
  const value = parseJson(text, 'candidate')
  if (value.candidate === undefined || value.candidate === null || value.candidate === '') return undefined
  if (typeof value.candidate !== 'string') throw invalid('candidate.candidate must be a string')
  const match = candidateLine.exec(value.candidate)
  const port = match ? Number(match[1]) : 0
  if (!match || port < 1 || port > 65535) {
    throw invalid('candidate.candidate is not an ICE candidate line ("candidate:<foundation> <component> udp <priority> <address> <port> typ host …")')
  }
  const sdpMid = value.sdpMid ?? undefined
  const sdpMLineIndex = value.sdpMLineIndex ?? undefined
  if (sdpMid !== undefined && typeof sdpMid !== 'string') throw invalid('candidate.sdpMid must be a string')
  if (sdpMLineIndex !== undefined && !(Number.isSafeInteger(sdpMLineIndex) && (sdpMLineIndex as number) >= 0)) {
    throw invalid('candidate.sdpMLineIndex must be a non-negative integer')
  }
  // The offer has one media section, so a candidate without either belongs to it.
  if (sdpMid === undefined && sdpMLineIndex === undefined) return { candidate: value.candidate, sdpMLineIndex: 0 }
  return { candidate: value.candidate, sdpMid: sdpMid as string | undefined, sdpMLineIndex: sdpMLineIndex as number | undefined }
}

/** One of our candidates as pushed on SubToWebRtcCandidates; without a candidate it marks the end (upstream's shape). */
export function candidateMessage(candidate?: { candidate: string; sdpMid?: string; sdpMLineIndex?: number }): string {
  if (!candidate) return JSON.stringify({ type: 'candidate' })
  return JSON.stringify({ type: 'candidate', candidate: candidate.candidate, sdpMid: candidate.sdpMid, sdpMLineIndex: candidate.sdpMLineIndex })
}

/** The address of a candidate line (5th field after `candidate:`). */
export function candidateAddress(line: string): string | undefined {
  return line.replace(/^a=/, '').split(' ')[4]
}

/** Keeps only the candidate lines whose address is allowed (the answer's SDP lists what werift gathered). */
export function keepCandidates(sdp: string, allowed: (address: string) => boolean): string {
  return sdp
    .split('\r\n')
    .filter(line => !line.startsWith('a=candidate:') || allowed(candidateAddress(line) ?? ''))
    .join('\r\n')
}

function parseJson(text: string, what: string): Record<string, unknown> {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    throw invalid(`${what} is not JSON`)
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw invalid(`${what} must be a JSON object`)
  return value as Record<string, unknown>
}

const invalid = (message: string) => new OperationError('invalid_input', message)
