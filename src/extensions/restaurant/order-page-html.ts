// The customer ordering page: one self-contained HTML document per restaurant, no external assets. The
// menu tree is rendered here, on the server, so the page reads without script; the browser script
// (page/order.ts, bundled with its QR encoder by npm run build into build/console/order-page.js and inlined here)
// adds modifiers, the cart, quoting, placing the order, the invoice as a QR code with its countdown, and the live
// status. Every name and description is escaped: they are the owner's free text.
import { availableAt, nextOpening } from './availability.js'
import type { TreeNode } from './menu-tree.js'
import { bundledScript, escapeHtml, inlinePageHeaders, scriptJson } from '../../inline-page/index.js'

/** The bundled browser script (build/console/order-page.js). Without it the page still shows the menu. */
const orderPageScript = bundledScript(
  'order-page.js',
  "document.getElementById('error').hidden=false;document.getElementById('error').textContent='Ordering is unavailable: the page script is not built (npm run build).'",
)

export interface PageItem {
  id: string
  node_id: string | null
  name: string
  description: string
  price: string
  image: string | null
  sold_out: boolean
  modifier_groups: {
    id: string
    name: string
    min_select: number
    max_select: number | null
    modifiers: { id: string; name: string; price_delta: string }[]
  }[]
  availability_windows: { days: string[]; start: string; end: string }[]
}

export interface PageRestaurant {
  id: string
  name: string
  slug: string
  description: string
  currency: string
  timezone: string
  image: string | null
  active: boolean
}

export interface OrderPageData {
  restaurant: PageRestaurant
  tree: TreeNode[]
  /** Active items only; the page shows which are sold out or outside their hours right now. */
  items: PageItem[]
  now: number
  apiBase: string
}

/** Only http(s) and inline images are shown; anything else (javascript:, data:text/html…) is dropped. */
const safeImage = (url: string | null) => (url && /^(https?:\/\/|data:image\/(png|jpeg|gif|webp);)/i.test(url) ? url : null)

export function formatPrice(amount: string, currency: string): string {
  return currency === 'sat' ? `${amount} ${amount === '1' ? 'sat' : 'sats'}` : `${amount} ${currency}`
}

/**
 * The page's headers: the strict policy of a self-contained page, with images also from any http(s) address, since an
 * item's picture is a URL the owner gives.
 */
export function orderPageHeaders(): Record<string, string> {
  const script = orderPageScript()
  if (headers?.script !== script) headers = { script, value: inlinePageHeaders({ script, style, images: "'self' data: https: http:" }) }
  return headers.value
}
let headers: { script: string; value: Record<string, string> } | undefined

/** Why an item outside its hours cannot be ordered, and until when: "Not available now · from 11:00" (later today) or "· from Tue 11:00". */
function notAvailableText(item: PageItem, nowMs: number, timeZone: string): string {
  const next = nextOpening(item.availability_windows, nowMs, timeZone)
  if (!next) return 'Not available now'
  const day = next.weekday.charAt(0).toUpperCase() + next.weekday.slice(1)
  return `Not available now · from ${next.today ? '' : `${day} `}${next.start}`
}

export function renderOrderPage(data: OrderPageData): string {
  const { restaurant } = data
  const itemsByNode = new Map<string | null, PageItem[]>()
  for (const item of data.items) {
    const list = itemsByNode.get(item.node_id) ?? []
    list.push(item)
    itemsByNode.set(item.node_id, list)
  }
  const available = new Map(
    data.items.map(item => [item.id, !item.sold_out && availableAt(item.availability_windows, data.now, restaurant.timezone)]),
  )

  const itemHtml = (item: PageItem) => {
    const canOrder = restaurant.active && available.get(item.id)
    const why = item.sold_out ? 'Sold out' : notAvailableText(item, data.now, restaurant.timezone)
    const image = safeImage(item.image)
    return `<li class="item" data-item-id="${escapeHtml(item.id)}">
  ${image ? `<img class="thumb" src="${escapeHtml(image)}" alt="" loading="lazy">` : ''}
  <div class="item-text"><strong class="item-name">${escapeHtml(item.name)}</strong>
  ${item.description ? `<p class="item-description">${escapeHtml(item.description)}</p>` : ''}
  ${item.modifier_groups.length > 0 ? `<p class="item-options">${escapeHtml(item.modifier_groups.map(g => g.name).join(' · '))}</p>` : ''}</div>
  <span class="price">${escapeHtml(formatPrice(item.price, restaurant.currency))}</span>
  ${canOrder
    ? `<button type="button" class="add" data-add="${escapeHtml(item.id)}">Add</button>`
    : `<span class="unavailable">${why}</span>`}
</li>`
  }

  const itemsHtml = (items: PageItem[] | undefined) =>
    items && items.length > 0 ? `<ul class="items">${items.map(itemHtml).join('\n')}</ul>` : ''

  const nodeHtml = (node: TreeNode): string => {
    const level = Math.min(node.depth + 2, 6)
    return `<section class="node depth-${node.depth}" id="node-${escapeHtml(node.id)}" data-node-id="${escapeHtml(node.id)}">
<h${level}>${escapeHtml(node.name)}</h${level}>
${node.description ? `<p class="node-description">${escapeHtml(node.description)}</p>` : ''}
${itemsHtml(itemsByNode.get(node.id))}
${node.children.map(nodeHtml).join('\n')}
</section>`
  }

  const detached = itemsByNode.get(null)
  const banner = safeImage(restaurant.image)
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(restaurant.name)} · order</title>
<style>${style}</style>
</head>
<body>
<header>
${banner ? `<img class="banner" src="${escapeHtml(banner)}" alt="">` : ''}
<h1>${escapeHtml(restaurant.name)}</h1>
${restaurant.description ? `<p class="description">${escapeHtml(restaurant.description)}</p>` : ''}
${restaurant.active ? '' : '<p class="closed" role="status">This restaurant is not taking orders right now.</p>'}
<nav aria-label="Menu sections">${data.tree.map(node => `<a href="#node-${escapeHtml(node.id)}">${escapeHtml(node.name)}</a>`).join('')}${detached?.length ? '<a href="#node-more">More</a>' : ''}</nav>
</header>
<div class="layout">
<main id="menu">
${data.tree.map(nodeHtml).join('\n')}
${detached?.length ? `<section class="node depth-0" id="node-more"><h2>More</h2>${itemsHtml(detached)}</section>` : ''}
${data.items.length === 0 ? '<p class="empty">The menu is empty for now.</p>' : ''}
</main>
<aside id="cart" aria-label="Your order">
<h2>Your order <span id="cart-count" class="count"></span></h2>
<p id="cart-empty">Nothing yet: add something from the menu.</p>
<ul id="cart-lines"></ul>
<p class="total">Total <span id="cart-total">–</span> <span id="cart-sats"></span></p>
<form id="checkout" hidden>
<label>Table <input id="table" name="table" maxlength="100" autocomplete="off"></label>
<label>Note for the kitchen <textarea id="customer-note" name="customer_note" maxlength="1000" rows="2"></textarea></label>
<button type="submit" id="place-order">Place order</button>
</form>
<p id="error" role="alert" hidden></p>
</aside>
</div>
<dialog id="options" aria-labelledby="options-title">
<form method="dialog" id="options-form">
<h2 id="options-title"></h2>
<div id="options-groups"></div>
<label>Quantity <input id="options-quantity" type="number" min="1" max="99" value="1"></label>
<label>Note <input id="options-note" maxlength="500" autocomplete="off"></label>
<p id="options-error" role="alert" hidden></p>
<menu><button value="cancel" type="button" id="options-cancel" class="secondary">Cancel</button><button value="add" id="options-add">Add to order</button></menu>
</form>
</dialog>
<section id="invoice" hidden aria-live="polite">
<h2>Pay with Lightning</h2>
<p id="order-number" class="order-number"></p>
<p id="invoice-amount"></p>
<p id="invoice-expiry" class="expiry" aria-live="off"></p>
<a id="invoice-link" class="qr-link"><div id="qr"></div></a>
<textarea id="bolt11" readonly rows="4" aria-label="Lightning invoice"></textarea>
<p><button type="button" id="copy">Copy invoice</button> <a id="open-wallet" href="#">Open in wallet</a></p>
<p id="order-status" data-status="pending">Waiting for payment…</p>
<p><button type="button" id="fresh-invoice" hidden>Get a fresh invoice</button> <button type="button" id="new-order" hidden>Start a new order</button></p>
</section>
<script type="application/json" id="menu-data">${scriptJson({ restaurant, items: data.items, apiBase: data.apiBase })}</script>
<script>${orderPageScript()}</script>
</body>
</html>
`
}

const style = `
:root{color-scheme:light dark;--accent:#c2410c;--line:#8884}
*{box-sizing:border-box}
body{margin:0;font:16px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
header{padding:1rem 1.25rem;border-bottom:1px solid var(--line)}
h1{margin:.2rem 0}
.banner{width:100%;max-height:12rem;object-fit:cover;border-radius:.5rem}
nav{display:flex;gap:.5rem;flex-wrap:wrap;margin-top:.5rem}
nav a{padding:.2rem .7rem;border:1px solid var(--line);border-radius:1rem;text-decoration:none;color:inherit}
.layout{display:grid;grid-template-columns:minmax(0,1fr) 20rem;gap:1.5rem;padding:1rem 1.25rem}
@media (max-width:760px){.layout{grid-template-columns:1fr}}
.node{margin:0 0 1rem}.node .node{margin-left:1rem}
.items{list-style:none;padding:0;margin:.5rem 0}
.item{display:flex;gap:.75rem;align-items:center;padding:.6rem 0;border-bottom:1px solid var(--line)}
.item-text{flex:1}.item-text p{margin:.15rem 0;opacity:.8;font-size:.9em}
.thumb{width:3.5rem;height:3.5rem;object-fit:cover;border-radius:.4rem}
.price{white-space:nowrap;font-variant-numeric:tabular-nums}
.unavailable{opacity:.6;font-size:.9em}
button{font:inherit;padding:.35rem .9rem;border-radius:.4rem;border:1px solid var(--accent);background:var(--accent);color:#fff;cursor:pointer}
button[disabled]{opacity:.5;cursor:default}
button.secondary,#cart-lines button{background:transparent;color:inherit;border-color:var(--line);padding:.1rem .5rem}
#cart{position:sticky;top:1rem;align-self:start;border:1px solid var(--line);border-radius:.6rem;padding:1rem}
#cart h2{margin-top:0}#cart-lines{list-style:none;padding:0}
#cart-lines li{padding:.4rem 0;border-bottom:1px solid var(--line)}
.line-head{display:flex;justify-content:space-between;gap:.5rem}.line-mods{font-size:.85em;opacity:.8}
.line-qty{display:flex;gap:.3rem;align-items:center;margin-top:.2rem}
label{display:block;margin:.5rem 0}input,textarea{font:inherit;width:100%;padding:.3rem}
#error,#options-error{color:#dc2626}
dialog{max-width:26rem;width:calc(100% - 2rem);border:1px solid var(--line);border-radius:.6rem}
fieldset{border:1px solid var(--line);border-radius:.4rem;margin:.5rem 0}
fieldset label{display:flex;gap:.5rem;align-items:center;margin:.2rem 0}fieldset input{width:auto}
menu{display:flex;gap:.5rem;justify-content:flex-end;padding:0}
#invoice{max-width:26rem;margin:1rem auto;padding:1rem;border:1px solid var(--line);border-radius:.6rem;text-align:center}
#qr svg{width:100%;max-width:20rem;height:auto;background:#fff}
#bolt11{font:12px/1.3 ui-monospace,monospace;word-break:break-all}
#order-status[data-status=paid]{color:#16a34a;font-weight:600}
#order-status[data-status=expired],#order-status[data-status=canceled]{color:#dc2626}
.order-number{font-size:1.4em;font-weight:700;margin:.2rem 0}
.expiry{font-variant-numeric:tabular-nums;opacity:.85}
.count:not(:empty)::before{content:"· "}
@media (max-width:760px){
#cart{position:sticky;top:auto;bottom:0;z-index:2;max-height:45vh;overflow-y:auto;background:Canvas;box-shadow:0 -4px 12px #0003;border-radius:.6rem .6rem 0 0;padding:.75rem 1rem}
#cart h2{font-size:1.1em;margin:0 0 .3rem}
#cart-lines{margin:.2rem 0}#cart-lines li{padding:.2rem 0}
#checkout label{margin:.3rem 0}#customer-note{height:2.2rem}
#place-order{position:sticky;bottom:0;width:100%;box-shadow:0 0 0 .4rem Canvas}
}
`
