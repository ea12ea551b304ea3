"""Exit 0 when the PostgreSQL and Redis servers given as arguments answer, else say
which one does not and exit 1."""

import sys

import psycopg
import redis


def main(database_url: str, redis_url: str) -> int:
    problems = []
    try:
        # The test database is created by the suite; reaching the server is enough.
        psycopg.connect(database_url.rsplit("/", 1)[0] + "/postgres", connect_timeout=5).close()
    except psycopg.Error as exc:
        problems.append(f"PostgreSQL at {database_url} is not reachable: {exc}".strip())
    try:
        redis.Redis.from_url(redis_url, socket_connect_timeout=5).ping()
    except redis.RedisError as exc:
        problems.append(f"Redis at {redis_url} is not reachable: {exc}")
    for problem in problems:
        print(problem, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
