// SIGKILL at random moments under the 'payments' load (load-mixes.ts).
import { sigkillSuite } from './sigkill-suite.js'

sigkillSuite('payments', 12, 4)
