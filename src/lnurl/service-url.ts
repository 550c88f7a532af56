// Where LNURL links point, and whether they may be handed out at all. A link built on a loopback address is
// useless to any wallet but one on this machine, so (as upstream) every LNURL feature refuses while the public
// URL is unset or loopback, unless `[lnurl] allow_loopback` says this is a test.
import { OperationError } from '../bus/index.js'

/**
 * Upstream's wording first, kept because clients match on it, then the switch that is SERVICE_URL here: an operator
 * who reads only this answer learns which key turns LNURL on.
 */
export const lnurlDisabledMessage =
  'Lnurl not enabled. Make sure to set SERVICE_URL env variable (relaypay: [http] public_url, env RELAYPAY_HTTP_PUBLIC_URL, a URL wallets can reach, not loopback)'

export interface ServiceUrlConfig {
  /** `[http] public_url`. */
  publicUrl: string | undefined
  allowLoopback: boolean
  /** The address the HTTP API listens on, used only when loopback is allowed and no public URL is set. */
  listenUrl(): string
}

export interface ServiceUrl {
  /** The base URL without a trailing slash; throws the "not enabled" error when LNURL is off. */
  base(): string
  /** The host part of the base URL: the domain of Lightning addresses. */
  domain(): string
}

export function serviceUrl(config: ServiceUrlConfig): ServiceUrl {
  const base = (): string => {
    const url = config.publicUrl
    const usable = url !== undefined && !isLoopback(url)
    if (!usable && !config.allowLoopback) throw new OperationError('forbidden', lnurlDisabledMessage)
    return (url ?? config.listenUrl()).replace(/\/+$/, '')
  }
  return { base, domain: () => new URL(base()).host }
}

function isLoopback(url: string): boolean {
  const host = new URL(url).hostname.toLowerCase()
  return host === 'localhost' || host.endsWith('.localhost') || host.startsWith('127.') || host === '[::1]' || host === '::1'
}
