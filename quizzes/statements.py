"""Statements of the step path that the ORM writes once per process, sent with each call's values.

A step's statements have the same shape every time, and building and compiling one costs
Django more CPU than the database spends running it (0.3–0.5 ms of Python for the attempt's
read, against about 0.1 ms to send it and read its rows). A prepared statement is a queryset,
or a model's INSERT, that the ORM compiles on its first use in a process, with a marker value
in each place a call fills; every call then sends the ORM's own SQL with its values and reads
the rows back through the same compiler (its converters: SQLite's dates and decimals, JSON).
No SQL is written by hand, so it is the same on SQLite and PostgreSQL, and query counting
(tests, the bench) sees every statement as it sees the ORM's.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from django.db import DEFAULT_DB_ALIAS, connections
from django.db.models import Model, QuerySet
from django.db.models.constants import OnConflict
from django.db.models.sql import InsertQuery
from django.db.models.sql.compiler import SQLCompiler, SQLInsertCompiler

# Filled in for the values of a call: valid ids for any integer column (a value out of a
# column's range would make the ORM drop the condition), and never a real row's id.
_MARKERS = tuple(-2_000_000_000 - n for n in range(32))
# What a database's integer column can hold; the ORM finds no row for an id outside it, and so
# do we (an address such as /attempts/99999999999999999999/ is a 404, not a driver's error).
_ID_RANGE = range(-(2**63), 2**63)


def fits_id(value: int) -> bool:
    """Whether a database's integer column can hold `value` (a statement finds no row for
    one it cannot, as the ORM has it)."""
    return value in _ID_RANGE


def list_slots(name: str, size: int) -> tuple[str, ...]:
    """The names of `size` values that fill one `__in` list of a PreparedQuery."""
    return tuple(f"{name}{n}" for n in range(size))


def list_values(name: str, ids: Sequence[int], size: int) -> dict[str, int]:
    """One to `size` `ids` as the values of `list_slots(name, size)`: repeated to fill every
    slot, as `IN` ignores a value it holds twice."""
    if not 0 < len(ids) <= size:
        raise ValueError(f"{len(ids)} values for a list of {size}")
    return {f"{name}{n}": ids[n % len(ids)] for n in range(size)}


@dataclass(frozen=True)
class _Compiled:
    sql: str
    params: tuple[Any, ...]
    # Where each named value goes in `params` (a union repeats its filters).
    slots: tuple[tuple[str, int], ...]
    names: tuple[str, ...]
    compiler: SQLCompiler
    # The compiler's converters for the selected columns (SQLite's dates and decimals, JSON),
    # found once: results_iter would look them up again for every call.
    converters: dict[int, Any]


class PreparedQuery:
    """A `values()` queryset compiled once per process and database.

    `build` takes the values to fill in as keyword arguments and returns the queryset with
    them in place (`lambda pk, user_id: Attempt.objects.filter(pk=pk, user_id=user_id)
    .values(...)`); each is an integer (at most 32 of them), used once or more in the
    statement.
    """

    def __init__(self, build: Callable[..., QuerySet[Any, Any]], *slots: str) -> None:
        self._build = build
        self._slots = slots
        self._compiled: dict[str, _Compiled] = {}
        self._lock = threading.Lock()

    def rows(self, using: str = DEFAULT_DB_ALIAS, /, **values: int) -> list[dict[str, Any]]:
        """The rows for `values`, as `values()` gives them (from database `using`)."""
        if not all(fits_id(value) for value in values.values()):
            return []
        compiled = self._compiled.get(using) or self._compile(using)
        params = list(compiled.params)
        for name, index in compiled.slots:
            params[index] = values[name]
        with connections[using].cursor() as cursor:
            cursor.execute(compiled.sql, params)
            fetched = cursor.fetchall()
        if not fetched:
            return []
        converted = (
            compiled.compiler.apply_converters(fetched, compiled.converters)
            if compiled.converters
            else fetched
        )
        names = compiled.names
        return [dict(zip(names, row, strict=True)) for row in converted]

    def _compile(self, using: str) -> _Compiled:
        with self._lock:
            if using in self._compiled:
                return self._compiled[using]
            markers = dict(zip(self._slots, _MARKERS, strict=False))
            queryset = self._build(**markers)
            query = queryset.query
            compiler = query.get_compiler(using=using)
            sql, params = compiler.as_sql()
            slots = []
            for name, marker in markers.items():
                found = [index for index, param in enumerate(params) if param == marker]
                if not found:
                    raise ValueError(f"{name!r} must appear in the statement")
                slots.extend((name, index) for index in found)
            names = (*query.extra_select, *query.values_select, *query.annotation_select)
            columns = [select[0] for select in compiler.select[: compiler.col_count]]
            if compiler.has_composite_fields(columns):
                raise ValueError("A prepared query reads no composite primary key")
            converters = compiler.get_converters(columns)
            compiled = _Compiled(sql, tuple(params), tuple(slots), names, compiler, converters)
            self._compiled[using] = compiled
            return compiled


class PreparedInsert:
    """A model's INSERT of one row, compiled once per process and database; `insert(obj)`
    writes `obj` as `obj.save()` would write a new row (no signals: the model has none) and
    gives it its primary key. With `ignore_conflicts`, as `bulk_create(..., ignore_conflicts=
    True)`: a row that breaks a unique constraint is skipped, and `obj` gets no key."""

    def __init__(self, model: type[Model], *, ignore_conflicts: bool = False) -> None:
        self._model = model
        self._on_conflict = OnConflict.IGNORE if ignore_conflicts else None
        # The columns save() writes for a new row: all but generated ones and the auto key.
        self._fields = [
            field
            for field in model._meta.local_concrete_fields
            if not field.generated and field is not model._meta.auto_field
        ]
        self._compiled: dict[str, tuple[str, SQLInsertCompiler]] = {}
        self._lock = threading.Lock()

    def insert(self, obj: Model, *, using: str = DEFAULT_DB_ALIAS) -> None:
        compiled = self._compiled.get(using) or self._compile(obj, using)
        sql, compiler = compiled
        params = [
            compiler.prepare_value(field, compiler.pre_save_val(field, obj))
            for field in self._fields
        ]
        with connections[using].cursor() as cursor:
            cursor.execute(sql, params)
            if self._on_conflict is None:
                (obj.pk,) = cursor.fetchone()
        obj._state.adding = False
        obj._state.db = using

    def _compile(self, obj: Model, using: str) -> tuple[str, SQLInsertCompiler]:
        with self._lock:
            if using in self._compiled:
                return self._compiled[using]
            query = InsertQuery(self._model, on_conflict=self._on_conflict)
            query.insert_values(self._fields, [obj])
            compiler = query.get_compiler(using=using)
            assert isinstance(compiler, SQLInsertCompiler)
            if self._on_conflict is None:
                compiler.returning_fields = [self._model._meta.pk]
            ((sql, _params),) = compiler.as_sql()
            self._compiled[using] = (sql, compiler)
            return sql, compiler
