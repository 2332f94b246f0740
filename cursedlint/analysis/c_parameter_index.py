"""The project indexes of what callers pass the parameters of the linted file's registering
functions (`analysis.c_parameter_blocks`), of the stores into the members it reads, and of how
the project makes objects of the types its registered members are reached through
(`analysis.c_typed_blocks`), for CUR301/CUR302."""

from __future__ import annotations

from cursedlint.analysis.c_parameter_blocks import (
    ASKED, INDEX, MAX_DEPTH, MEMBER_INDEX, VALUES_INDEX, CallerBlocks, call_values, caller_base,
    member_stores, passed_on, word_blocks,
)
from cursedlint.analysis.c_typed_blocks import (
    TYPED_INDEX, TypeCreations, joined, neighbours, type_creations,
)
from cursedlint.analysis.rdma_registrations import WRAPPERS_INDEX, registrations_of
from cursedlint.languages import C, CPP
from cursedlint.project.index import Indexer


class ParameterBlockIndex(Indexer):
    """Per C/C++ file (`CallerBlocks`: what each call passes), searched from the linted
    file's registering functions whose memory comes through a parameter (`seed_words`) up
    through callers passing it on, to `MAX_DEPTH` rounds. Made per word searched
    (`Indexer.per_word`): whether a file has any (`caller_base`), and the calls, values,
    stores and clears of the names searched (`word_blocks`), never its every call's."""

    per_word = True

    name = INDEX
    languages = (C, CPP)
    summary_type = CallerBlocks
    max_rounds = MAX_DEPTH
    max_files, max_bytes = 40, 4 << 20

    def words(self, settings):
        return ()

    def seed_words(self, context):  # (no identifier holds `ASKED`)
        """`function#position`: files are searched for the name, that argument followed."""
        return {f"{function}{ASKED}{position}" for function, position in registrations_of(
            context, context.project.get(WRAPPERS_INDEX)).parameter_functions}

    def lookups(self, context):
        return self.searched_as(self.seed_words(context))

    def affects(self, facts, path, lookups):
        """Only calls of the linted file's functions asked about change its findings."""
        return any(name in found.calls for found in facts.values() for name in lookups)

    def searched_as(self, words):
        return {word.partition(ASKED)[0] for word in words}

    def summarize_word(self, context, word):
        return word_blocks(context, frozenset(self.searched_as((word,)))) if word \
            else caller_base(context)

    def merged(self, pieces):
        calls, values, stores, clears = {}, set(), {}, {}
        for piece in pieces:
            calls.update(piece.calls)
            values.update(piece.values)
            stores.update(piece.stores)
            clears.update(piece.clears)
        return CallerBlocks(calls, sorted(values), stores, clears)

    def more_words_after(self, facts, settings, searched):
        return passed_on(facts, searched)

    def words_read(self, facts, settings, searched):
        """A `static` function's calls lead on too: `passed_in` follows them in its file."""
        return passed_on(facts, searched, statics=True)


PARAMETER_BLOCKS = ParameterBlockIndex()


class CallValueIndex(Indexer):
    """Per C/C++ file (`CallerBlocks`, its calls' constant arguments and plain names alone,
    `call_values`), searched for the functions other files may call at the top of the linted
    file's call contexts of registrations whose lengths it does not know
    (`Registrations.length_functions`), one round. Its own bounds: those names do not crowd out
    `PARAMETER_BLOCKS`' callers."""

    name = VALUES_INDEX
    languages = (C, CPP)
    summary_type = CallerBlocks
    max_rounds = 1
    max_files, max_bytes = 40, 4 << 20

    def words(self, settings):
        return ()

    def seed_words(self, context):
        return registrations_of(context, context.project.get(WRAPPERS_INDEX)).length_functions

    def lookups(self, context):
        return self.seed_words(context)

    def affects(self, facts, path, lookups):
        return any(name in found.calls for found in facts.values() for name in lookups)

    def summarize(self, context):
        return call_values(context)


CALL_VALUES = CallValueIndex()


class MemberStoreIndex(Indexer):
    """Per C/C++ file (`CallerBlocks`, its stores into members and its getters alone),
    searched for the names of the members the linted file's registered addresses are read
    from (`p->m`) and of the getters whose calls they are, then for the functions given a
    member's address (their definitions may only clear it) and the members those getters
    return. Its own bounds: a common member name does not crowd out `PARAMETER_BLOCKS`'
    callers."""

    name = MEMBER_INDEX
    languages = (C, CPP)
    summary_type = CallerBlocks
    max_rounds = 2
    max_files, max_bytes = 40, 4 << 20

    def words(self, settings):
        return ()

    def seed_words(self, context):
        return registrations_of(context, context.project.get(WRAPPERS_INDEX)).members_read

    def lookups(self, context):
        return self.seed_words(context)

    def affects(self, facts, path, lookups):
        """Only stores into the members asked about, or getters of them, change the linted
        file's findings."""
        return any(name in found.stores or name in found.returns for found in facts.values()
                   for name in lookups)

    def summarize(self, context):
        return member_stores(context)

    def more_words_after(self, facts, settings, searched):
        """The functions given a member's address, and the members the getters asked about
        return."""
        return {*(store.function for found in facts.values() for member, stores
                  in found.stores.items() if member in searched for store in stores
                  if store.kind == "call"),
                *(member for found in facts.values() for name, members in found.returns.items()
                  if name in searched for member in members)}


MEMBER_STORES = MemberStoreIndex()


class TypedBlockIndex(Indexer):
    """Per C/C++ file (`TypeCreations`), searched for the types of the pointers the linted
    file's registered members are reached through with nothing else settling them, then for
    the types joined to those (aliases, casts, holders: `c_typed_blocks.neighbours`) until no
    new one appears; every file naming one is read (a `T` made anywhere counts)."""

    name = TYPED_INDEX
    languages = (C, CPP)
    summary_type = TypeCreations

    def words(self, settings):
        return ()

    def seed_words(self, context):
        return registrations_of(context, context.project.get(WRAPPERS_INDEX)).types_read

    def lookups(self, context):
        return self.seed_words(context)

    def affects(self, facts, path, lookups):
        return bool(lookups) and bool(facts)

    def summarize(self, context):
        return type_creations(context)

    def more_words_after(self, facts, settings, searched):
        """The types joined to those searched for, from each whose types joined so far (a
        member whose declaration is not yet read aside) are `MAX_JOINED` at most
        (`typed_provenance` knows no more of the types joined to one past that)."""
        return {name for typed in searched if joined(facts, typed, partial=True) is not None
                for name in neighbours(facts, typed, partial=True) or ()}


TYPED_BLOCKS = TypedBlockIndex()
