// Restaurant: the owner's wallet (a user token, then its admin key), its restaurants, the menu tree editor
// (categories, items, options, prices, availability), the live orders board (new, paid, printed, done) and the
// print jobs. Every call is the restaurant extension's own route with the wallet's admin key.
import { useEffect, useState } from 'preact/hooks'
import { call } from '../../../console/ui/api.js'
import { Check, Field, Section, Select, Status, Table, sats, submit, useAction } from '../../../console/ui/parts.js'
import { WalletPicker } from '../../../console/ui/wallet-picker.js'
import { actAs } from '../../../console/ui/pages/nwc.js'
import { MenuEditor, type Menu } from './menu-editor.js'

const base = '/restaurant/api/v1'

export interface RestaurantRow {
  id: string
  name: string
  slug: string
  currency: string
  active: boolean
}

interface Order {
  id: string
  /** The short number the customer and the ticket show (`#ABC123`). */
  number: string
  status: string
  items: { name: string; quantity: number; modifiers: { name: string }[]; note: string | null }[]
  subtotal: string
  currency: string
  table: string | null
  customer_note: string | null
  created_at: string
}

interface PrintJob {
  id: string
  order_id: string
  order_number: string
  status: string
  text: string
  created_at: string
}


export function Restaurant() {
  const [identifier, setIdentifier] = useState('')
  const [key, setKey] = useState<string | undefined>()
  const [restaurants, setRestaurants] = useState<RestaurantRow[]>([])
  const [selected, setSelected] = useState<string | undefined>()
  const [form, setForm] = useState({ name: '', slug: '', currency: 'sat' })
  const action = useAction()

  const loadRestaurants = async (apiKey: string) => {
    const list = await call<RestaurantRow[]>(`${base}/restaurants`, { apiKey })
    setRestaurants(list)
    if (!selected && list[0]) setSelected(list[0].id)
  }
  const restaurant = restaurants.find(r => r.id === selected)
  return (
    <>
      <h1>Restaurant</h1>
      <Section title="Owner wallet">
        <form class="row" onSubmit={submit(() => action.run(async () => {
          const { token } = await actAs(identifier)
          const keys = await call('/api/user/wallet/keys', { method: 'POST', bearer: token })
          await call('/api/v1/extension/restaurant/enable', { method: 'PUT', apiKey: keys.admin_key })
          setKey(keys.admin_key)
          setSelected(undefined)
          await loadRestaurants(keys.admin_key)
        }))}>
          <WalletPicker label="Owner's user identifier" name="owner" pick="identifier" required value={identifier} onChange={setIdentifier} />
          <button type="submit">Open</button>
        </form>
      </Section>
      <Status error={action.error} ok={action.ok} />
      {key && (
        <>
          <Section title="Restaurants">
            {restaurants.length > 0 && (
              <Select label="Restaurant" value={selected ?? ''} onChange={setSelected}
                options={restaurants.map(r => [r.id, `${r.name} (/restaurant/r/${r.slug})`])} />
            )}
            {restaurant && <p>Customer page: <a href={`/restaurant/r/${restaurant.slug}`} target="_blank" rel="noopener">/restaurant/r/{restaurant.slug}</a></p>}
            <form class="row" onSubmit={submit(() => action.run(async () => {
              const made = await call<RestaurantRow>(`${base}/restaurants`, { apiKey: key, body: { name: form.name.trim(), slug: form.slug.trim(), currency: form.currency } })
              setSelected(made.id)
              setForm({ name: '', slug: '', currency: 'sat' })
              await loadRestaurants(key)
              return `${made.name} created.`
            }))}>
              <Field label="New restaurant name" name="restaurant-name" required value={form.name} onInput={e => setForm({ ...form, name: e.currentTarget.value })} />
              <Field label="Address name (slug)" name="restaurant-slug" required pattern="[a-z0-9\-]+" value={form.slug} onInput={e => setForm({ ...form, slug: e.currentTarget.value })} />
              <Field label="Currency" name="restaurant-currency" required value={form.currency} onInput={e => setForm({ ...form, currency: e.currentTarget.value })} />
              <button type="submit">Create restaurant</button>
            </form>
          </Section>
          {restaurant && <RestaurantDetail key={restaurant.id} apiKey={key} restaurant={restaurant} onChanged={() => loadRestaurants(key)} />}
        </>
      )}
    </>
  )
}

function RestaurantDetail(props: { apiKey: string; restaurant: RestaurantRow; onChanged: () => void }) {
  const { apiKey, restaurant } = props
  const [menu, setMenu] = useState<Menu | undefined>()
  const [orders, setOrders] = useState<Order[]>([])
  const [jobs, setJobs] = useState<PrintJob[]>([])
  const action = useAction()
  const loadMenu = async () => setMenu(await call<Menu>(`${base}/restaurants/${restaurant.id}/menu`, { apiKey }))
  const loadBoard = async () => {
    const [o, j] = await Promise.all([
      call<Order[]>(`${base}/restaurants/${restaurant.id}/orders`, { apiKey, query: { limit: 50 } }),
      call<PrintJob[]>(`${base}/restaurants/${restaurant.id}/print_jobs`, { apiKey }),
    ])
    setOrders(o)
    setJobs(j)
  }
  useEffect(() => {
    action.run(loadMenu)
    loadBoard().catch(() => {})
    // The board is live: new orders and payments show up within a few seconds.
    const timer = setInterval(() => loadBoard().catch(() => {}), 3000)
    return () => clearInterval(timer)
  }, [restaurant.id])

  const move = (order: Order, status: string) => action.run(async () => {
    await call(`${base}/orders/${order.id}/status/${status}`, { method: 'PUT', apiKey, body: {} })
    await loadBoard()
  })
  const next: Record<string, string> = { paid: 'accepted', accepted: 'ready', ready: 'completed' }
  const ticketOf = new Map(jobs.map(job => [job.order_id, job]))
  const inKitchen = (o: Order) => ['paid', 'accepted', 'ready'].includes(o.status)
  const printed = (o: Order) => ticketOf.get(o.id)?.status === 'printed'
  // New: waiting for payment. Paid: its kitchen ticket not printed yet. Printed: the kitchen has the ticket.
  const columns: [string, (o: Order) => boolean][] = [
    ['New', o => o.status === 'pending'],
    ['Paid', o => inKitchen(o) && !printed(o)],
    ['Printed', o => inKitchen(o) && printed(o)],
    ['Done', o => ['completed', 'canceled', 'refunded', 'expired'].includes(o.status)],
  ]
  const ack = (job: PrintJob) => action.run(async () => {
    await call(`${base}/print_jobs/${job.id}/ack`, { method: 'PUT', apiKey })
    await loadBoard()
  })
  return (
    <>
      <Status error={action.error} ok={action.ok} />
      <Section title={`${restaurant.name}: settings`}>
        <Check label="Taking orders" checked={restaurant.active} onChange={active => action.run(async () => {
          await call(`${base}/restaurants/${restaurant.id}`, { method: 'PUT', apiKey, body: { active } })
          props.onChanged()
        })} />
      </Section>
      {menu && <MenuEditor apiKey={apiKey} menu={menu} reload={loadMenu} />}
      <Section title="Orders (live)">
        <div class="board">
          {columns.map(([title, shows]) => (
            <div class="column" role="region" aria-label={`${title} orders`}>
              <h3>{title}</h3>
              {orders.filter(shows).map(o => {
                const ticket = ticketOf.get(o.id)
                return (
                  <article class="order" data-status={o.status}>
                    <strong>{o.number}</strong> {o.table ? `table ${o.table}` : ''} · {o.status}
                    {/* What the kitchen cooks, as the printed ticket says it: each line's options and note. */}
                    <ul>
                      {o.items.map(i => (
                        <li>
                          {i.quantity} × {i.name}
                          {i.modifiers.map(m => <div class="modifier">+ {m.name}</div>)}
                          {i.note && <div class="note">note: {i.note}</div>}
                        </li>
                      ))}
                    </ul>
                    {o.customer_note && <p class="note">Note: {o.customer_note}</p>}
                    <span>{o.currency === 'sat' ? sats(Number(o.subtotal)) : `${o.subtotal} ${o.currency}`}</span>
                    {inKitchen(o) && ticket && <span> · ticket {ticket.status === 'printed' ? 'printed' : 'waiting'}</span>}
                    <span class="actions">
                      {inKitchen(o) && ticket?.status === 'pending' && (
                        <button type="button" class="secondary" aria-label={`Mark the ticket of ${o.number} printed`} onClick={() => ack(ticket)}>Mark printed</button>
                      )}
                      {next[o.status] && <button type="button" class="secondary" onClick={() => move(o, next[o.status]!)}>Mark {next[o.status]}</button>}
                    </span>
                  </article>
                )
              })}
            </div>
          ))}
        </div>
      </Section>
      <Section title="Print jobs">
        <Table caption="Kitchen tickets" head={['Order', 'Status', 'Ticket', '']}
          rows={jobs.map(job => [
            job.order_number,
            job.status,
            <pre class="ticket">{job.text}</pre>,
            job.status === 'pending' ? (
              <button type="button" class="secondary" aria-label={`Mark ticket ${job.order_number} printed`} onClick={() => ack(job)}>Mark printed</button>
            ) : '',
          ])} empty="No ticket yet." />
      </Section>
    </>
  )
}
