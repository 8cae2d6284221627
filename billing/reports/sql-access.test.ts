import { describe, expect, it } from 'vitest';
import { parseParams } from '../../app/cli/sql.ts';
import { checkQueryTree, checkSyntaxTree, parseAst, scopedQuery } from './sql-access.ts';

/** `EXPLAIN AST` of: SELECT a FROM actions AS q JOIN numbers(3) USING a WHERE a IN system.tables SETTINGS max_threads = 1 */
const AST = `SelectWithUnionQuery (children 1)
 ExpressionList (children 1)
  SelectQuery (children 4)
   ExpressionList (children 1)
    Identifier a
   TablesInSelectQuery (children 2)
    TablesInSelectQueryElement (children 1)
     TableExpression (children 1)
      TableIdentifier actions (alias q)
    TablesInSelectQueryElement (children 2)
     TableExpression (children 1)
      Function numbers (children 1)
       ExpressionList (children 1)
        Literal UInt64_3
     TableJoin (children 1)
      ExpressionList (children 1)
       Identifier a
   Function in (children 1)
    ExpressionList (children 2)
     Identifier a
     Identifier system.tables
   Set`.split('\n');

describe('sql-access checks (pure)', () => {
  it('reads EXPLAIN AST lines as nodes with their parents', () => {
    const nodes = parseAst(AST);
    const table = nodes.find((n) => n.kind === 'TableIdentifier')!;
    expect(table).toMatchObject({ name: 'actions', depth: 6, parent: { kind: 'TableExpression' } });
    expect(nodes.find((n) => n.name === 'numbers')!.parent!.kind).toBe('TableExpression');
  });

  it('refuses table functions, SETTINGS, qualified tables, IN a table and denied functions', () => {
    expect(() => checkSyntaxTree(AST)).toThrow(/table functions are not accepted \(numbers\)/);
    expect(() => checkSyntaxTree(AST.slice(0, 11).concat(AST.slice(17)))).toThrow(/IN takes a list or a subquery here \(not system.tables\)/);
    expect(() => checkSyntaxTree(AST.slice(0, 11).concat(AST.slice(17, 21)))).toThrow(/IN takes a list or a subquery/);
    expect(() => checkSyntaxTree(AST.slice(0, 11))).not.toThrow();
    expect(() => checkSyntaxTree(['SelectWithUnionQuery (children 1)', ' Set'])).toThrow(/SETTINGS are not accepted/);
    expect(() => checkSyntaxTree(['SelectWithUnionQuery (children 1)', ' TableExpression (children 1)', '  TableIdentifier tally.actions'])).toThrow(/without a database/);
    expect(() => checkSyntaxTree(['SelectWithUnionQuery (children 1)', ' Function FILE (children 1)'])).toThrow(/function FILE is not available/);
    expect(() => checkSyntaxTree(['SelectWithUnionQuery (children 1)', ' Function dictGetString (children 1)'])).toThrow(/not available/);
    expect(() => checkSyntaxTree(['InsertQuery (children 1)'])).toThrow(/only a SELECT/);
    expect(() => checkSyntaxTree(['SelectWithUnionQuery (children 1)', ' TableExpression (children 1)', '  TableIdentifier system.one'])).not.toThrow();
  });

  it('lets a resolved query read only the exposed tables of its database', () => {
    const tree = (name: string) => [`QUERY id: 0`, `  JOIN TREE`, `    TABLE id: 3, alias: __table1, table_name: ${name}, final: 1`];
    expect(() => checkQueryTree(tree('tally.cost_rules'), 'tally')).not.toThrow();
    expect(() => checkQueryTree(tree('system.one'), 'tally')).not.toThrow();
    expect(() => checkQueryTree(tree('tally.sink_dead_letters'), 'tally')).toThrow(/reads tally.sink_dead_letters/);
    expect(() => checkQueryTree(tree('other.actions'), 'tally')).toThrow(/reads other.actions/);
    expect(() => checkQueryTree(['    TABLE_FUNCTION id: 3, alias: __table1, table_function_name: merge'], 'tally')).toThrow(/merge/);
  });

  it('wraps the query under scoped names, read-only, limited and filtered by environment', () => {
    const sql = scopedQuery('SELECT count() FROM actions', 'tally', 'env_1');
    expect(sql).toMatch(/^WITH actions AS \(SELECT \* FROM tally\.actions WHERE environment_id = 'env_1'\), /);
    expect(sql).toContain('cost_rules AS (SELECT * FROM tally.cost_rules FINAL WHERE');
    expect(sql).toContain("SELECT * FROM (SELECT count() FROM actions) SETTINGS readonly = 1, max_execution_time = 30,");
    expect(sql).toContain("'tally.actions': 'environment_id = \\'env_1\\''");
    expect(() => scopedQuery('SELECT 1', 'tally', "x' OR 1")).toThrow();
  });

  it('reads --param name=value', () => {
    expect(parseParams(['from=2026-11-01 00:00:00', 'x=a=b'])).toEqual({ from: '2026-11-01 00:00:00', x: 'a=b' });
    expect(() => parseParams(['nothing'])).toThrow(/name=value/);
  });
});
