// CLINK offers, LNURL links and Lightning addresses of one wallet (through a user token, as the NWC page), and
// the operator's one-time invite links (every one the daemon holds, OperatorListInvites).
import { useState } from 'preact/hooks'
import { call } from '../api.js'
import { Copy, Field, Qr, Section, Status, Table, sats, short, submit, useAction, useLoad, when } from '../parts.js'
import { WalletPicker } from '../wallet-picker.js'
import { actAs } from './nwc.js'

interface Invite {
  invite_token: string
  used: boolean
  used_by: string
  created_at: number
  used_at: number
}

interface Offer {
  offer_id: string
  label: string
  price_sats: number
  noffer: string
  default_offer: boolean
}

export function Links() {
  const [identifier, setIdentifier] = useState('')
  const [bearer, setBearer] = useState<string | undefined>()
  const [offers, setOffers] = useState<Offer[]>([])
  const [offer, setOffer] = useState({ label: '', price: '0' })
  const [lnurl, setLnurl] = useState<{ kind: string; lnurl: string } | undefined>()
  const [address, setAddress] = useState('')
  const invites = useLoad(() => call<{ invites: Invite[] }>('/api/operator/invites').then(r => r.invites))
  const action = useAction()

  const loadOffers = async (token: string) => setOffers((await call<{ offers: Offer[] }>('/api/user/offers/get', { bearer: token })).offers)
  return (
    <>
      <h1>Offers, LNURL &amp; invites</h1>
      <Status error={action.error} ok={action.ok} />
      <Section title="Invite links">
        <p>A one-time invite lets a new person join through the service's app.</p>
        <button type="button" onClick={() => action.run(async () => {
          await call('/api/admin/app/invite/create', { body: {} })
          invites.reload()
          return 'Invite created: it is first in the list.'
        })}>Create an invite</button>
        <Status error={invites.error} />
        <Table caption="Invite links" head={['Invite token', 'Created', 'State', 'Copy']}
          rows={(invites.data ?? []).map((invite, i) => [
            <span class="mono wrap" data-testid={`invite-${i + 1}`}>{invite.invite_token}</span>,
            when(invite.created_at),
            invite.used ? <span title={invite.used_by}>used {when(invite.used_at)} by {short(invite.used_by, 6)}</span> : 'unused',
            <Copy text={invite.invite_token} what={`invite ${i + 1}`} />,
          ])} empty="None yet." />
      </Section>
      <Section title="A wallet's offers and links">
        <form class="row" onSubmit={submit(() => action.run(async () => {
          const { token } = await actAs(identifier)
          setBearer(token)
          setLnurl(undefined)
          await loadOffers(token)
        }))}>
          <WalletPicker label="User identifier" name="links-user" pick="identifier" required value={identifier} onChange={setIdentifier} />
          <button type="submit">Open</button>
        </form>
      </Section>
      {bearer && (
        <div class="grid">
          <Section title="CLINK offers">
            <Table caption="Offers" head={['Label', 'Price', 'Offer']}
              rows={offers.map(o => [o.label || (o.default_offer ? 'default' : ''), o.price_sats ? sats(o.price_sats) : 'payer chooses', <span class="offer"><span class="mono wrap">{o.noffer}</span> <Copy text={o.noffer} what={`the offer ${o.label || o.offer_id}`} /></span>])} />
            <form onSubmit={submit(() => action.run(async () => {
              await call('/api/user/offer/add', { bearer, body: { label: offer.label.trim(), price_sats: Number(offer.price), callback_url: '', payer_data: [], token: '', rejectUnauthorized: true } })
              await loadOffers(bearer)
              return 'Offer added.'
            }))}>
              <Field label="Offer label" name="offer-label" required value={offer.label} onInput={e => setOffer({ ...offer, label: e.currentTarget.value })} />
              <Field label="Price (sats, 0: payer chooses)" name="offer-price" type="number" min="0" value={offer.price} onInput={e => setOffer({ ...offer, price: e.currentTarget.value })} />
              <button type="submit">Add offer</button>
            </form>
          </Section>
          <Section title="LNURL and Lightning address">
            <p class="hint">LNURL links and Lightning addresses need <code>[http] public_url</code> in the config: the address
              wallets reach this daemon at.</p>
            <p class="row">
              <button type="button" onClick={() => action.run(async () => setLnurl({ kind: 'LNURL-pay', lnurl: (await call('/api/user/lnurl_pay/link', { bearer })).lnurl }))}>LNURL-pay link</button>
              <button type="button" onClick={() => action.run(async () => setLnurl({ kind: 'LNURL-withdraw', lnurl: (await call('/api/user/lnurl_withdraw/link', { bearer })).lnurl }))}>LNURL-withdraw link</button>
            </p>
            {lnurl && (
              <div class="secret">
                <Qr text={lnurl.lnurl.toUpperCase()} label={`QR code of the ${lnurl.kind} link`} />
                <p class="mono wrap">{lnurl.lnurl}</p>
                <Copy text={lnurl.lnurl} what={`the ${lnurl.kind} link`} />
              </div>
            )}
            <form onSubmit={submit(() => action.run(async () => {
              const answer = await call('/api/user/lnurl/address', { bearer, body: { name: address.trim() } })
              return `Lightning address ${answer.address} set.`
            }))}>
              <Field label="Lightning address name" name="ln-address" required pattern="[a-z0-9._\-]{1,64}" value={address} onInput={e => setAddress(e.currentTarget.value)} />
              <button type="submit">Set address</button>
            </form>
          </Section>
        </div>
      )}
    </>
  )
}
