// Numbers as people read them. By hand, not with Intl/toLocaleString: ICU number formatting
// costs megabytes of memory the first time it is used, and every surface shows numbers.

/** 12,345: rounded to an integer, with thousands separators. */
export function formatInt(n: number): string {
  const r = Math.round(n);
  if (!Number.isFinite(r)) return String(r);
  const digits = String(Math.abs(r)).replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  return r < 0 ? `-${digits}` : digits;
}
