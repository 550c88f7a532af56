// The kitchen printer's side: poll a restaurant's jobs (an invoice key suffices) and acknowledge a printed one
// (admin key). A second acknowledgement answers the job as it is.
import type { Handler } from '../../../bus/index.js'
import { printJob } from '../print-job-store.js'
import type { RestaurantRoom } from '../room.js'
import { notFound, ownedRestaurant } from '../access.js'

export function printJobHandlers(room: RestaurantRoom) {
  const PrintJobList: Handler<'PrintJobList'> = async (input, ctx) => {
    const restaurant = await ownedRestaurant(room, input.id, ctx.caller)
    return (await room.printJobs.list(restaurant.id, input.status)).map(printJob)
  }

  const PrintJobAck: Handler<'PrintJobAck'> = async (input, ctx) => {
    const job = (await room.printJobs.get(input.id)) ?? notFound('Print job')
    await ownedRestaurant(room, job.restaurant_id, ctx.caller)
    await room.printJobs.ack(job.id, room.now())
    return printJob((await room.printJobs.get(job.id)) ?? notFound('Print job'))
  }

  return { PrintJobList, PrintJobAck }
}
