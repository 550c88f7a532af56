// The wallet page's document: the same for every wallet (the wallet is named by the secret in the link's fragment,
// which never reaches the server), with its one script (page/wallet.ts, bundled with its QR encoder and decoder by npm
// run build into build/console/wallet-page.js) and one style inline, allowed by their hashes.
import { bundledScript, inlinePageHeaders } from '../inline-page/index.js'

const walletPageScript = bundledScript(
  'wallet-page.js',
  "document.getElementById('refused').hidden=false;document.getElementById('refused-reason').textContent='The wallet page is not built on this server (npm run build).'",
)

/** The page and its headers, made again only when the bundle changes (it is read once; a test build may add it late). */
export function walletPage(): { html: string; headers: Record<string, string> } {
  const script = walletPageScript()
  if (built?.script !== script) built = { script, html: document(script), headers: inlinePageHeaders({ script, style }) }
  return built
}
let built: { script: string; html: string; headers: Record<string, string> } | undefined

const document = (script: string) => `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<meta name="robots" content="noindex">
<title>Wallet</title>
<style>${style}</style>
</head>
<body>
<main>
<section id="refused" role="alert" hidden>
<h1>This link does not open a wallet</h1>
<p id="refused-reason"></p>
</section>
<div id="wallet" hidden>
<header>
<h1>Wallet</h1>
<p class="balance"><span id="balance" aria-live="polite">–</span></p>
<p id="withdrawable" class="muted"></p>
</header>
<nav class="tabs" aria-label="Wallet actions">
<button type="button" id="tab-receive" aria-controls="receive" aria-pressed="true">Receive</button>
<button type="button" id="tab-send" aria-controls="send" aria-pressed="false">Send</button>
<button type="button" id="tab-connect" aria-controls="connect" aria-pressed="false">Connect an app</button>
</nav>
<p id="error" role="alert" hidden></p>
<section id="receive" class="panel" aria-labelledby="receive-title">
<h2 id="receive-title">Receive</h2>
<form id="receive-form">
<label>Amount (sats) <input id="receive-amount" name="amount" type="number" inputmode="numeric" min="1" step="1" required></label>
<label>Note for the payer (optional) <input id="receive-memo" name="memo" maxlength="200" autocomplete="off"></label>
<button type="submit">Create invoice</button>
</form>
<div id="invoice" hidden>
<img id="invoice-qr" class="qr" alt="QR code of the invoice">
<textarea id="invoice-text" readonly rows="4" aria-label="The invoice"></textarea>
<p class="row"><button type="button" id="invoice-copy" class="secondary">Copy invoice</button></p>
<p id="invoice-state" data-state="waiting" aria-live="polite">Waiting for the payment…</p>
</div>
</section>
<section id="send" class="panel" aria-labelledby="send-title" hidden>
<h2 id="send-title">Send</h2>
<form id="send-form">
<label>Lightning invoice, LNURL or Lightning address <textarea id="send-text" name="destination" rows="4" required autocomplete="off" spellcheck="false"></textarea></label>
<p class="row"><button type="submit">Continue</button> <button type="button" id="scan-start" class="secondary">Scan a QR code</button></p>
</form>
<div id="scan" hidden>
<video id="scan-video" muted playsinline aria-label="What the camera sees"></video>
<p id="scan-state" class="muted" aria-live="polite"></p>
<p class="row"><button type="button" id="scan-cancel" class="secondary">Stop the camera</button></p>
</div>
<div id="send-confirm" hidden>
<p id="send-summary"></p>
<div id="send-choice" hidden>
<label>Amount to send (sats) <input id="send-amount" name="send-amount" type="number" inputmode="numeric" min="1" step="1"></label>
<label id="send-comment-field">Comment for the recipient (optional) <input id="send-comment" name="comment" autocomplete="off"></label>
</div>
<p class="row"><button type="button" id="send-pay">Pay</button> <button type="button" id="send-cancel" class="secondary">Cancel</button></p>
</div>
<p id="send-result" aria-live="polite"></p>
<section id="send-success" aria-labelledby="send-success-title" hidden>
<h3 id="send-success-title">From the recipient</h3>
<div id="send-success-body"></div>
</section>
</section>
<section id="connect" class="panel" aria-labelledby="connect-title" hidden>
<h2 id="connect-title">Connect an app</h2>
<p class="muted">Nostr Wallet Connect: the app can pay from this wallet and create invoices for it. Scan the code with the app, or copy the text into it.</p>
<form id="connect-form">
<label>App name <input id="connect-name" name="name" maxlength="100" required autocomplete="off"></label>
<button type="submit">Create connection</button>
</form>
<div id="connection" hidden>
<img id="connection-qr" class="qr" alt="QR code of the connection string">
<textarea id="connection-text" readonly rows="5" aria-label="The connection string"></textarea>
<p class="row"><button type="button" id="connection-copy" class="secondary">Copy connection string</button></p>
<p class="muted">Shown once: anyone holding it can use this wallet. Keep it in the app only.</p>
</div>
</section>
<section aria-labelledby="history-title">
<h2 id="history-title">History</h2>
<p id="history-empty" class="muted">Nothing yet.</p>
<ul id="history"></ul>
</section>
</div>
</main>
<script>${script}</script>
</body>
</html>
`

const style = `
:root{color-scheme:light dark;--bg:#fff;--fg:#18181b;--muted:#52525b;--line:#d4d4d8;--accent:#7c3aed;--on-accent:#fff;--ok:#15803d;--bad:#b91c1c}
@media (prefers-color-scheme:dark){:root{--bg:#18181b;--fg:#f4f4f5;--muted:#a1a1aa;--line:#3f3f46;--accent:#a78bfa;--on-accent:#18181b;--ok:#4ade80;--bad:#f87171}}
*{box-sizing:border-box}
body{margin:0;background:var(--bg);color:var(--fg);font:16px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
main{max-width:32rem;margin:0 auto;padding:1rem}
h1{margin:.2rem 0;font-size:1.3rem}h2{font-size:1.1rem;margin:1rem 0 .5rem}
.balance{font-size:2rem;font-weight:700;margin:.2rem 0;font-variant-numeric:tabular-nums}
.muted{color:var(--muted);font-size:.92em}
.tabs{display:flex;gap:.4rem;flex-wrap:wrap;margin:1rem 0}
.tabs button{flex:1 1 auto;background:transparent;color:var(--fg);border-color:var(--line)}
.tabs button[aria-pressed=true]{background:var(--accent);color:var(--on-accent);border-color:var(--accent)}
.panel{border:1px solid var(--line);border-radius:.6rem;padding:.2rem 1rem 1rem}
label{display:block;margin:.6rem 0}
input,textarea{display:block;width:100%;max-width:100%;margin-top:.2rem;font:inherit;padding:.4rem;color:var(--fg);background:var(--bg);border:1px solid var(--line);border-radius:.4rem}
textarea{font:13px/1.3 ui-monospace,monospace;word-break:break-all;resize:vertical}
button{font:inherit;padding:.45rem 1rem;border-radius:.4rem;border:1px solid var(--accent);background:var(--accent);color:var(--on-accent);cursor:pointer}
button.secondary{background:transparent;color:var(--fg);border-color:var(--line)}
button[disabled]{opacity:.5;cursor:default}
.row{display:flex;gap:.5rem;flex-wrap:wrap}
.qr{display:block;width:100%;max-width:18rem;height:auto;margin:.8rem auto;background:#fff;border-radius:.4rem}
#invoice-state[data-state=paid],#send-result[data-state=paid]{color:var(--ok);font-weight:600}
#invoice-state[data-state=expired],#send-result[data-state=failed],#error{color:var(--bad)}
#error{border:1px solid var(--bad);border-radius:.4rem;padding:.5rem .75rem}
#refused{border:1px solid var(--bad);border-radius:.6rem;padding:1rem;margin-top:2rem}
#history{list-style:none;padding:0;margin:0}
#history li{display:flex;justify-content:space-between;gap:.75rem;padding:.5rem 0;border-bottom:1px solid var(--line)}
#history .what{min-width:0;overflow-wrap:anywhere}#history .amount{white-space:nowrap;font-variant-numeric:tabular-nums}
#history .in{color:var(--ok)}
#scan video{display:block;width:100%;max-width:24rem;aspect-ratio:1;object-fit:cover;margin:.6rem auto 0;background:#000;border:1px solid var(--line);border-radius:.4rem}
#scan-state{text-align:center}
#send-success{border:1px solid var(--ok);border-radius:.4rem;padding:.1rem .75rem;margin-top:.5rem;overflow-wrap:anywhere}
#send-success h3{font-size:1rem;margin:.5rem 0}
#send-success a{color:var(--accent)}
#send-success .secret{font:15px/1.4 ui-monospace,monospace;font-weight:600}
`
