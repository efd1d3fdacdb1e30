/**
 * The exact McNemar test for paired binary outcomes (one trial per task in each arm): only the
 * discordant tasks carry information; under no difference each is equally likely to favour either
 * arm, so the count favouring the arm is Binomial(discordant, 1/2) (McNemar 1947; exact form as in
 * R's exact2x2::mcnemar.exact, equal to binom.test(b, b + c)).
 */
import { binomialHalfTwoSided } from './binomial.js';

/** `armOnly`: tasks the arm passed and solo failed; `soloOnly`: the reverse. Two-sided p-value. */
export function mcnemarExact(armOnly: number, soloOnly: number): number {
  return binomialHalfTwoSided(armOnly, armOnly + soloOnly);
}
