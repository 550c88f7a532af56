// Where LNURL links point, and whether they may be handed out at all. A link built on a loopback address is
// useless to any wallet but one on this machine, so (as upstream) every LNURL feature refuses while the public
// URL is unset or loopback, unless `[lnurl] allow_loopback` says this is a test.
import { OperationError } from '../bus/index.js'
import { isLoopbackUrl } from '../config/index.js'

/**
 * Upstream's first sentence, kept because clients match on it, then relaypay's own key: upstream's next words name its
 * SERVICE_URL variable, which relaypay does not read, so an operator who reads only this answer is told the key
 * that turns LNURL on here, and upstream's name only after it.
 */
export const lnurlDisabledMessage =
  'Lnurl not enabled. Set [http] public_url (env RELAYPAY_HTTP_PUBLIC_URL) to a URL wallets can reach, not loopback (upstream calls it SERVICE_URL)'

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
    const usable = url !== undefined && !isLoopbackUrl(url)
    if (!usable && !config.allowLoopback) throw new OperationError('forbidden', lnurlDisabledMessage)
    return (url ?? config.listenUrl()).replace(/\/+$/, '')
  }
  return { base, domain: () => new URL(base()).host }
}

