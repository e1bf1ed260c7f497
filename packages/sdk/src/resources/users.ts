import type { UserList, UserSummary } from "@jobsight/schemas";
import type { RequestOptions, Transport } from "../http/transport.js";

/** The users the server knows of (site-wide admin role). */
export class UsersResource {
  constructor(private readonly transport: Transport) {}

  /**
   * Every user with recorded jobs or a live issued API token, by name: their clusters, job count,
   * last submission, and their live tokens' count and roles. With `cluster`, only that cluster's
   * jobs and the tokens bound to it (or to none) count.
   *
   * @example
   * ```ts
   * for (const u of await client.users.list({ cluster: "hpc1" })) console.log(u.user, u.jobs, u.lastSubmittedAt);
   * ```
   */
  async list(query: { cluster?: string } = {}, options?: RequestOptions): Promise<UserSummary[]> {
    const answer = await this.transport.request<UserList>({
      operationId: "listUsers",
      query: { cluster: query.cluster },
      options,
    });
    return answer.users;
  }
}
