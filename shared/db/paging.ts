/** One page of a list: rows to skip and rows to return (both API families' paging reads into it). */
export interface Page {
  offset: number;
  limit: number;
}
