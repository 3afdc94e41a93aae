//go:build !unix

package pollread

import "os"

func pollable(*os.File) (*os.File, func(), bool) { return nil, nil, false }
