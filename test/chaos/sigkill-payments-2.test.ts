// SIGKILL at random moments under the 'payments' load (load-mixes.ts), part 2 of 3.
import { sigkillSuite } from './sigkill-suite.js'

sigkillSuite('payments', 2, 5)
