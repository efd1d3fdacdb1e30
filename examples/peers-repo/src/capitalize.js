/** Upper-cases the first letter of a word and keeps the rest as it is. */
export function capitalize(word) {
  if (word.length === 0) return word;
  return word[0].toUpperCase() + word;
}
