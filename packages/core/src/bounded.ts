const MAX_ENTRIES = 10_000;

/** A Map that forgets its least recently set entry beyond a bound, so a warm process's caches cannot grow without limit. */
export class BoundedMap<K, V> extends Map<K, V> {
  constructor(private readonly bound = MAX_ENTRIES) {
    super();
  }

  override set(key: K, value: V) {
    this.delete(key);
    super.set(key, value);
    if (this.size > this.bound) this.delete(this.keys().next().value!);
    return this;
  }
}
