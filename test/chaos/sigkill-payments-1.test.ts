// SIGKILL at random moments under the 'payments' load (load-mixes.ts), part 1 of 3.
import { sigkillSuite } from './sigkill-suite.js'

sigkillSuite('payments', 1, 4)
