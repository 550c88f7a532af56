// An HTTP/2 proxy in front of a real LND, for the one fault LND cannot be made to show on cue: a call that left
// relaypay and never reached LND, as when LND dies with the request still in its socket. It ends TLS with a
// certificate of its own and passes every gRPC call through to LND unchanged, except the next call of a method it
// was told to cut: that call's request is read in full and then the connection is dropped, so the caller cannot know
// whether LND got it, and LND never did.
import fs from 'node:fs'
import http2 from 'node:http2'
import os from 'node:os'
import path from 'node:path'
import type { AddressInfo } from 'node:net'
import { makeTlsCert } from '../fake-lnd/tls-cert.js'

export interface CuttingProxy {
  /** How relaypay reaches LND through the proxy (the daemon's lnd_socket and lnd_cert_path). */
  socket: string
  certPath: string
  /** The next call of `method` (e.g. "/routerrpc.Router/SendPaymentV2") is cut after its request; answers when it was. */
  cutNext(method: string): Promise<void>
  close(): Promise<void>
}

/** The headers a request or response carries on, without HTTP/2's own. */
function passOn(headers: http2.IncomingHttpHeaders, keep: string[]): http2.OutgoingHttpHeaders {
  return Object.fromEntries(Object.entries(headers).filter(([name]) => !name.startsWith(':') || keep.includes(name)))
}

export async function startCuttingProxy(lnd: { socket: string; certPath: string }): Promise<CuttingProxy> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'relaypay-cutting-proxy-'))
  const tls = makeTlsCert(dir)
  const upstream = http2.connect(`https://${lnd.socket}`, { ca: fs.readFileSync(lnd.certPath) })
  upstream.on('error', () => undefined)
  const cuts = new Map<string, () => void>()
  const server = http2.createSecureServer({ key: tls.key, cert: tls.cert })
  const sessions = new Set<http2.ServerHttp2Session>()
  server.on('session', session => {
    sessions.add(session)
    session.on('close', () => sessions.delete(session))
  })
  server.on('stream', (stream, headers) => {
    const method = String(headers[':path'])
    const cut = cuts.get(method)
    if (cut) {
      cuts.delete(method)
      stream.on('data', () => undefined)
      stream.on('end', () => {
        stream.session?.destroy()
        cut()
      })
      return
    }
    const call = upstream.request(passOn(headers, [':method', ':path']))
    call.on('response', response => {
      // A trailers-only answer (a failure before any message) ends in its headers.
      const trailersOnly = response['grpc-status'] !== undefined
      stream.respond(passOn(response, [':status']), trailersOnly ? { endStream: true } : { waitForTrailers: true })
    })
    let trailers: http2.OutgoingHttpHeaders = {}
    call.on('trailers', received => (trailers = passOn(received, [])))
    stream.on('wantTrailers', () => stream.sendTrailers(trailers))
    call.on('data', (chunk: Buffer) => stream.write(chunk))
    call.on('end', () => {
      if (!stream.closed && !stream.headersSent) stream.respond({ ':status': 502 }, { endStream: true })
      else if (!stream.closed && !stream.writableEnded) stream.end()
    })
    call.on('error', () => stream.close(http2.constants.NGHTTP2_INTERNAL_ERROR))
    stream.on('data', (chunk: Buffer) => call.write(chunk))
    stream.on('end', () => call.end())
    stream.on('close', () => {
      if (!call.closed) call.close(http2.constants.NGHTTP2_CANCEL)
    })
    stream.on('error', () => undefined)
  })
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    socket: `127.0.0.1:${port}`,
    certPath: tls.certPath,
    cutNext: method => new Promise<void>(resolve => cuts.set(method, resolve)),
    async close() {
      upstream.close()
      const closed = new Promise<void>(resolve => server.close(() => resolve()))
      for (const session of sessions) session.destroy()
      await closed
      fs.rmSync(dir, { recursive: true, force: true })
    },
  }
}
