// Short messages shown in one live region of the shell (saved, copied, waiting on a 429).
export interface Notice {
  id: number;
  kind: 'info' | 'success' | 'error';
  text: string;
}

type Listener = (all: Notice[]) => void;

let next = 1;
let current: Notice[] = [];
const listeners = new Set<Listener>();
const emit = () => {
  for (const l of listeners) l(current);
};

export const notices = {
  /** Shows a notice; returns a function that removes it (success notices also go by themselves). */
  show(notice: Omit<Notice, 'id'>, ttlMs = notice.kind === 'success' ? 4000 : 0): () => void {
    const n = { ...notice, id: next++ };
    current = [...current, n];
    emit();
    const remove = () => {
      current = current.filter((x) => x.id !== n.id);
      emit();
    };
    if (ttlMs > 0) setTimeout(remove, ttlMs);
    return remove;
  },
  subscribe(listener: Listener): () => void {
    listeners.add(listener);
    listener(current);
    return () => listeners.delete(listener);
  },
};
