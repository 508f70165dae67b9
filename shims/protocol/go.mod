module topoconf/shims/protocol

go 1.25.0
