import bcrypt from 'bcryptjs';

// bcrypt's usual work factor; `compare` reads the rounds from each stored hash, so raising this
// later only changes new hashes.
const ROUNDS = 12;

export const hashPassword = (password: string): Promise<string> => bcrypt.hash(password, ROUNDS);

// Compared against when the email is unknown, so that a login takes as long whether or not the
// account exists and its timing does not reveal registered emails. Made on first use, not at import.
let unknownUserHash: Promise<string> | undefined;

/** True when `password` matches `hash`; with no hash, spends the same time and answers false. */
export async function verifyPassword(password: string, hash: string | undefined): Promise<boolean> {
  if (hash === undefined) {
    await bcrypt.compare(password, await (unknownUserHash ??= hashPassword('no account has this password')));
    return false;
  }
  return bcrypt.compare(password, hash);
}
