// The guest-order flood guest-limits.test.ts measures, run as its own process so the daemon shares nothing with the
// attacker but the network: `loops` concurrent loops, half posting 18,000-line orders and half posting the largest
// order the caps allow, for `seconds`. Prints one JSON line: how many answers of each status it got.
// Usage: node guest-flood.js <daemon url> <restaurant id> <item id> <loops> <seconds>
const [url, restaurantId, itemId, loopsText, secondsText] = process.argv.slice(2)
const loops = Number(loopsText)
const until = Date.now() + Number(secondsText) * 1000
const huge = JSON.stringify({ restaurant_id: restaurantId, items: Array.from({ length: 18_000 }, () => ({ item_id: itemId, quantity: 1 })) })
const largest = JSON.stringify({
  restaurant_id: restaurantId,
  items: Array.from({ length: 50 }, () => ({ item_id: itemId, quantity: 100, note: 'x'.repeat(200) })),
  customer_note: 'y'.repeat(500),
})
const statuses: Record<string, number> = {}

async function loop(body: string): Promise<void> {
  while (Date.now() < until) {
    try {
      const res = await fetch(`${url}/restaurant/api/v1/orders`, { method: 'POST', headers: { 'content-type': 'application/json' }, body })
      await res.arrayBuffer()
      statuses[res.status] = (statuses[res.status] ?? 0) + 1
    } catch {
      // The daemon cut the upload short (a 413 answered before the body was read): count it and go on.
      statuses.cut = (statuses.cut ?? 0) + 1
    }
  }
}

await Promise.all(Array.from({ length: loops }, (_, i) => loop(i % 2 === 0 ? huge : largest)))
process.stdout.write(`${JSON.stringify(statuses)}\n`)
