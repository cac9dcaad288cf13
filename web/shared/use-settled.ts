// A value once it has stayed the same for a while: what is shown of a problem while someone types
// (a half-typed tag is not an error worth flashing; one still there after a pause is).
import { useEffect, useState } from 'react';

export function useSettled<T>(value: T, ms: number): T | undefined {
  const [settled, setSettled] = useState<T | undefined>(undefined);
  useEffect(() => {
    // A value that goes away goes at once; a new one waits for the pause.
    if (!value) return setSettled(undefined);
    const timer = setTimeout(() => setSettled(() => value), ms);
    return () => clearTimeout(timer);
  }, [value, ms]);
  return value ? settled : undefined;
}
