// The design's blocks in order: pick one to edit its settings, remove it, or move it by drag and
// drop with the mouse, touch or keyboard (a block's handle: Space or Enter picks it up, the arrow
// keys move it, Space or Enter drops it, Escape cancels), as @dnd-kit/sortable provides.
import { DndContext, KeyboardSensor, PointerSensor, closestCenter, useSensor, useSensors, type DragEndEvent } from '@dnd-kit/core';
import { SortableContext, arrayMove, sortableKeyboardCoordinates, useSortable, verticalListSortingStrategy } from '@dnd-kit/sortable';
import { CSS } from '@dnd-kit/utilities';
import { BLOCK_LABELS, blockSummary, type Block } from './design-model.ts';

export interface Item {
  id: string;
  block: Block;
}

export function BlockList({
  items,
  selected,
  onSelect,
  onChange,
}: {
  items: Item[];
  selected: string | undefined;
  onSelect: (id: string) => void;
  onChange: (items: Item[]) => void;
}) {
  const sensors = useSensors(
    useSensor(PointerSensor, { activationConstraint: { distance: 4 } }),
    useSensor(KeyboardSensor, { coordinateGetter: sortableKeyboardCoordinates }),
  );
  const label = (id: string | number) => {
    const at = items.findIndex((i) => i.id === id);
    return at < 0 ? 'the block' : `${BLOCK_LABELS[items[at]!.block.type]} (block ${at + 1} of ${items.length})`;
  };
  const onDragEnd = ({ active, over }: DragEndEvent) => {
    if (!over || active.id === over.id) return;
    const from = items.findIndex((i) => i.id === active.id);
    const to = items.findIndex((i) => i.id === over.id);
    onChange(arrayMove(items, from, to));
  };
  return (
    <DndContext
      sensors={sensors}
      collisionDetection={closestCenter}
      onDragEnd={onDragEnd}
      accessibility={{
        screenReaderInstructions: {
          draggable: 'To move a block, press Space or Enter, move it with the arrow keys, then press Space or Enter to drop it, or Escape to cancel.',
        },
        announcements: {
          onDragStart: ({ active }) => `Picked up ${label(active.id)}.`,
          onDragOver: ({ active, over }) =>
            over
              ? `${BLOCK_LABELS[items.find((i) => i.id === active.id)!.block.type]} is over position ${items.findIndex((i) => i.id === over.id) + 1}.`
              : 'Not over a position.',
          onDragEnd: ({ active, over }) => (over ? `Dropped at position ${items.findIndex((i) => i.id === over.id) + 1}.` : `Dropped ${label(active.id)}.`),
          onDragCancel: ({ active }) => `Moving ${label(active.id)} was cancelled.`,
        },
      }}
    >
      <SortableContext items={items.map((i) => i.id)} strategy={verticalListSortingStrategy}>
        <ol className="block-list" aria-label="Blocks, in order">
          {items.map((item, index) => (
            <SortableBlock
              key={item.id}
              item={item}
              index={index}
              selected={item.id === selected}
              onSelect={() => onSelect(item.id)}
              onRemove={items.length > 1 ? () => onChange(items.filter((i) => i.id !== item.id)) : undefined}
            />
          ))}
        </ol>
      </SortableContext>
    </DndContext>
  );
}

function SortableBlock({
  item,
  index,
  selected,
  onSelect,
  onRemove,
}: {
  item: Item;
  index: number;
  selected: boolean;
  onSelect: () => void;
  onRemove: (() => void) | undefined;
}) {
  const { attributes, listeners, setNodeRef, setActivatorNodeRef, transform, transition, isDragging } = useSortable({ id: item.id });
  const name = BLOCK_LABELS[item.block.type];
  const summary = blockSummary(item.block);
  return (
    <li
      ref={setNodeRef}
      className={`block-item${selected ? ' block-item--selected' : ''}${isDragging ? ' block-item--dragging' : ''}`}
      style={{ transform: CSS.Transform.toString(transform), transition }}
      data-block={item.block.type}
    >
      <button
        type="button"
        className="block-item__handle"
        ref={setActivatorNodeRef}
        {...attributes}
        {...listeners}
        aria-label={`Move ${name}, block ${index + 1}`}
      >
        <span aria-hidden="true">⠿</span>
      </button>
      <button type="button" className="block-item__name" aria-pressed={selected} onClick={onSelect}>
        <strong>{name}</strong>
        {summary ? <span className="muted small"> {summary}</span> : null}
      </button>
      {onRemove ? (
        <button type="button" className="btn btn-ghost btn-small" onClick={onRemove} aria-label={`Remove ${name}, block ${index + 1}`}>
          Remove
        </button>
      ) : null}
    </li>
  );
}
