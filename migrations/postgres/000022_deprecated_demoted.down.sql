UPDATE documents SET demoted = demoted & ~2 WHERE demoted & 2 <> 0;
