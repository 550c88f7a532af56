// WalletPage: the page's one HTML document (page-html.ts), never cached.
import type { Handler, HandlerTable } from '../../bus/index.js'
import { walletPage } from '../page-html.js'

export function walletPageHandlers(): HandlerTable {
  const WalletPage: Handler<'WalletPage'> = async () => {
    const page = walletPage()
    return { contentType: 'text/html; charset=utf-8', headers: { ...page.headers, 'cache-control': 'no-store' }, body: page.html }
  }
  return { WalletPage }
}
