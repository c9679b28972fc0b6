/** Who acts: the user, and the organization whose data the domain reads and writes for them. */
export interface Actor {
  userId: number;
  organizationId: number;
}
