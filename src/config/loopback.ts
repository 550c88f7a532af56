// Whether an address a setting names is this machine's own (localhost, 127.0.0.0/8, ::1): fine for tests and for a
// daemon and its clients on one host, useless in anything handed to a client elsewhere (a phone, a browser, a wallet).

export function isLoopbackUrl(url: string): boolean {
  const host = new URL(url).hostname.toLowerCase()
  return host === 'localhost' || host.endsWith('.localhost') || host.startsWith('127.') || host === '[::1]' || host === '::1'
}
