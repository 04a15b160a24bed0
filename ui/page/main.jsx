// The page's entry: styles, the `/` key, and the app in <div id="app">.
import './style.css'
import { render } from 'preact'
import { App } from './app.jsx'
import { installSearchKey } from './lib/keys.js'

installSearchKey()
render(<App />, document.getElementById('app'))
