// SIGKILL at random moments under the 'relay-requests' load (load-mixes.ts), part 1 of 3.
import { sigkillSuite } from './sigkill-suite.js'

sigkillSuite('relay-requests', 1, 7)
