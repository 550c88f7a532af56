// The fiat currencies relaypay prices in: the ISO 4217 codes in current circulation (not funds, metals, test
// codes or withdrawn currencies, which no provider quotes against BTC), and the subset Kraken's daily series
// covers, which decides the historical source (historical.ts).

const circulating = `
AED AFN ALL AMD ANG AOA ARS AUD AWG AZN BAM BBD BDT BGN BHD BIF BMD BND BOB BRL BSD BTN BWP BYN BZD CAD CDF CHF
CLP CNY COP CRC CUP CVE CZK DJF DKK DOP DZD EGP ERN ETB EUR FJD FKP GBP GEL GHS GIP GMD GNF GTQ GYD HKD HNL HTG
HUF IDR ILS INR IQD IRR ISK JMD JOD JPY KES KGS KHR KMF KPW KRW KWD KYD KZT LAK LBP LKR LRD LSL LYD MAD MDL MGA
MKD MMK MNT MOP MRU MUR MVR MWK MXN MYR MZN NAD NGN NIO NOK NPR NZD OMR PAB PEN PGK PHP PKR PLN PYG QAR RON RSD
RUB RWF SAR SBD SCR SDG SEK SGD SHP SLE SOS SRD SSP STN SVC SYP SZL THB TJS TMT TND TOP TRY TTD TWD TZS UAH UGX
USD UYU UZS VES VND VUV WST XAF XCD XCG XOF XPF YER ZAR ZMW ZWG`

const fiatCurrencies: ReadonlySet<string> = new Set(circulating.trim().split(/\s+/))

/** Fiat currencies Kraken trades against BTC (pairs XBT<CUR>); their history comes from its daily series. */
export const krakenFiat: ReadonlySet<string> = new Set(['USD', 'EUR', 'GBP', 'CAD', 'JPY', 'CHF', 'AUD'])

/** True for an upper-case ISO 4217 code of a circulating currency ("EUR"); false for "eur", "sat", "XAU". */
export function isKnownCurrency(code: string): boolean {
  return fiatCurrencies.has(code)
}
