module github.com/ghostcheck/ghostcheck

go 1.26.0

require github.com/google/uuid v1.6.0
