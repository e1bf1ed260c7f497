/** Options of {@link EmailRecipients}. */
export type EmailRecipientsOptions = {
  /** Users without an explicit address get `<user>@<domain>`. @default undefined (only `addresses`) */
  domain?: string;
  /** Explicit addresses by user name; they win over `domain`. @default {} */
  addresses?: Readonly<Record<string, string>>;
};

// A user name safe as the local part of an address (nothing a mail header could be split at).
const LOCAL_PART = /^[A-Za-z0-9._%+-]{1,64}$/;

/**
 * Who gets mail about a user's jobs: the user's explicit address, else `<user>@<domain>` when the
 * name is a plain local part; nobody otherwise.
 *
 * @example
 * ```ts
 * const to = new EmailRecipients({ domain: "lab.example.org", addresses: { bob: "bob@elsewhere.org" } });
 * to.addressOf("alice"); // "alice@lab.example.org"
 * to.addressOf("bob"); // "bob@elsewhere.org"
 * ```
 */
export class EmailRecipients {
  readonly #domain: string | undefined;
  readonly #addresses: ReadonlyMap<string, string>;

  constructor(options: EmailRecipientsOptions) {
    this.#domain = options.domain;
    this.#addresses = new Map(Object.entries(options.addresses ?? {}));
  }

  /** The address of `user`, or `undefined` when none is known. */
  addressOf(user: string): string | undefined {
    const explicit = this.#addresses.get(user);
    if (explicit) return explicit;
    if (this.#domain && LOCAL_PART.test(user)) return `${user}@${this.#domain}`;
    return undefined;
  }
}
