import { inspect } from 'node:util';
import { expect } from 'vitest';

/**
 * Given/when/then specs of a slice's pure decider (after Emmett's `DeciderSpecification`):
 *
 *   spec(decider).given([earlier events]).when(command).then([new events])
 *   spec(decider).given([earlier events]).when(command).thenThrows(ErrorClass, /message/)
 *
 * `given` folds the events with the slice's `evolve` from its `initialState`, `when` decides
 * the command on that state, and `then` compares the decision with `toEqual` (asymmetric
 * matchers such as `expect.objectContaining` work) and hands back the decision and the state
 * the new events fold to, for a spec that also pins down what the fold makes of them. Every
 * decision is made twice on the same state and must come out the same: a decider takes time,
 * ids and the actor from the command's metadata, never from the clock or a random source.
 */
export interface Decider<Command, Event, State, Decision = readonly Event[]> {
  readonly decide: (command: Command, state: State) => Decision;
  readonly evolve: (state: State, event: Event) => State;
  readonly initialState: () => State;
}

/** What a `then` hands back: the decision, and the given state with its events folded in. */
export interface Decided<State, Decision> {
  readonly decision: Decision;
  readonly state: State;
}

/** An error's class: `thenThrows(RequestClosed)` (abstract classes are fine too). */
export type ErrorClass<E extends Error> = abstract new (...args: never[]) => E;

/**
 * A further check of the thrown error: its message matches the pattern, or the callback does
 * not return false (a predicate, or a callback that asserts with `expect`).
 */
export type ErrorCheck<E> = RegExp | ((error: E) => unknown);

export interface When<State, Decision> {
  /** The command decides exactly `expected` (`[]`: it is already satisfied, nothing to append). */
  then(expected: Decision): Decided<State, Decision>;
  /** The command is refused with an error of this class (and, if given, passing `check`). */
  thenThrows<E extends Error>(errorClass: ErrorClass<E>, check?: ErrorCheck<E>): E;
  /** The command is refused with an error whose message matches, or that the predicate accepts. */
  thenThrows(check: ErrorCheck<Error>): Error;
}

export interface Given<Command, State, Decision> {
  /** The state the given events folded to, for a spec of the fold itself. */
  readonly state: State;
  when(command: Command): When<State, Decision>;
}

export interface DeciderSpecification<Command, Event, State, Decision> {
  given(events?: readonly Event[]): Given<Command, State, Decision>;
}

const isErrorClass = <E extends Error>(
  value: ErrorClass<E> | ErrorCheck<Error>,
): value is ErrorClass<E> =>
  typeof value === 'function' && (value === (Error as unknown) || value.prototype instanceof Error);

const passes = <E>(error: E, check: ErrorCheck<E> | undefined): void => {
  if (check === undefined) return;
  if (check instanceof RegExp) {
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toMatch(check);
    return;
  }
  expect(check(error), `the refusal ${inspect(error)} did not pass the check`).not.toBe(false);
};

/** A spec of a decider whose `decide` answers its new events. */
export function spec<Command, Event, State>(
  decider: Decider<Command, Event, State>,
): DeciderSpecification<Command, Event, State, readonly Event[]>;
/** A spec of a decider that answers more than its events (a batch's per-item outcomes). */
export function spec<Command, Event, State, Decision>(
  decider: Decider<Command, Event, State, Decision>,
  eventsOf: (decision: Decision) => readonly NoInfer<Event>[],
): DeciderSpecification<Command, Event, State, Decision>;
export function spec<Command, Event, State, Decision>(
  decider: Decider<Command, Event, State, Decision>,
  // Only the first overload omits it, and there the decision is the list of events.
  eventsOf = (decision: Decision): readonly Event[] => decision as readonly Event[],
): DeciderSpecification<Command, Event, State, Decision> {
  const fold = (state: State, events: readonly Event[]): State =>
    events.reduce(decider.evolve, state);
  return {
    given: (events = []) => {
      const state = fold(decider.initialState(), events);
      return {
        state,
        when: (command) => {
          const decide = (): Decision => decider.decide(command, state);
          return {
            then: (expected) => {
              const decision = decide();
              expect(decide(), 'deciding again on the same state decides the same').toEqual(
                decision,
              );
              expect(decision).toEqual(expected);
              return { decision, state: fold(state, eventsOf(decision)) };
            },
            thenThrows: <E extends Error>(
              expected: ErrorClass<E> | ErrorCheck<Error>,
              check?: ErrorCheck<E>,
            ): E => {
              let decision: Decision;
              try {
                decision = decide();
              } catch (error) {
                if (isErrorClass(expected)) {
                  expect(error).toBeInstanceOf(expected);
                  passes(error as E, check);
                } else passes(error as E, expected as ErrorCheck<E>);
                return error as E;
              }
              return expect.unreachable(
                `expected the command to be refused, but it decided ${inspect(decision, { depth: 6 })}`,
              );
            },
          };
        },
      };
    },
  };
}
